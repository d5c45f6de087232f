import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import { durationMs } from '../../src/core/durations.ts';

/** Operations: the shutdown grace period and the metrics port, as the environment gives them. */
describe('operations settings', () => {
  it('reads durations as 10s, 1m, 500ms, 1h, ISO 8601 or seconds', () => {
    expect(durationMs('10s', 's')).toBe(10_000);
    expect(durationMs('1m', 's')).toBe(60_000);
    expect(durationMs('500ms', 's')).toBe(500);
    expect(durationMs('1.5s', 's')).toBe(1500);
    expect(durationMs('1h', 's')).toBe(3_600_000);
    expect(durationMs('PT10S', 's')).toBe(10_000);
    expect(durationMs('pt1m30s', 's')).toBe(90_000);
    expect(durationMs('PT1H', 's')).toBe(3_600_000);
    expect(durationMs('15', 's')).toBe(15_000);
    expect(durationMs('0', 's')).toBe(0);
    for (const bad of ['', 's', '10 s', '-1s', 'PT', 'ten seconds', '10sec']) expect(durationMs(bad, 's'), bad).toBeNull();
  });

  it('drains for 10 s by default, and refuses a grace period it cannot read, naming the variable', () => {
    expect(loadConfig({}).shutdownGraceMs).toBe(10_000);
    expect(loadConfig({ HEARTH_SHUTDOWN_GRACE: '30s' }).shutdownGraceMs).toBe(30_000);
    expect(loadConfig({ HEARTH_SHUTDOWN_GRACE: 'PT0S' }).shutdownGraceMs).toBe(0);
    expect(() => loadConfig({ HEARTH_SHUTDOWN_GRACE: 'soon' })).toThrow(ConfigError);
    expect(() => loadConfig({ HEARTH_SHUTDOWN_GRACE: 'soon' })).toThrow(/HEARTH_SHUTDOWN_GRACE must be a duration .*got "soon"/);
    expect(() => loadConfig({ HEARTH_SHUTDOWN_GRACE: '2h' })).toThrow(/HEARTH_SHUTDOWN_GRACE must be a duration/);
  });

  it('serves /metrics on a port of its own only when asked, on HOST unless told otherwise', () => {
    expect(loadConfig({}).metrics).toBeNull();
    expect(loadConfig({ HEARTH_METRICS_PORT: '9464' }).metrics).toEqual({ port: 9464, host: '127.0.0.1' });
    expect(loadConfig({ HEARTH_METRICS_PORT: '9464', HOST: '0.0.0.0' }).metrics).toEqual({ port: 9464, host: '0.0.0.0' });
    expect(loadConfig({ HEARTH_METRICS_PORT: '9464', HEARTH_METRICS_HOST: '10.0.0.5' }).metrics).toEqual({ port: 9464, host: '10.0.0.5' });
    expect(() => loadConfig({ HEARTH_METRICS_PORT: 'ninety' })).toThrow(/HEARTH_METRICS_PORT must be an integer/);
    expect(() => loadConfig({ HEARTH_METRICS_PORT: '3000' })).toThrow(/HEARTH_METRICS_PORT must differ from PORT/);
    expect(() => loadConfig({ HEARTH_METRICS_HOST: '0.0.0.0' })).toThrow(/HEARTH_METRICS_HOST needs HEARTH_METRICS_PORT/);
  });

  it('reads HEARTH_FILE_SOURCE_ROOT as an absolute folder; unset, none; the root of the file system is refused', () => {
    expect(loadConfig({}).fileSourceRoot).toBeNull();
    expect(loadConfig({ HEARTH_FILE_SOURCE_ROOT: ' ' }).fileSourceRoot).toBeNull();
    expect(loadConfig({ HEARTH_FILE_SOURCE_ROOT: '/srv/exports/' }).fileSourceRoot).toBe('/srv/exports');
    expect(loadConfig({ HEARTH_FILE_SOURCE_ROOT: 'exports' }).fileSourceRoot).toBe(path.resolve('exports'));
    for (const everything of ['/', '/srv/..']) {
      expect(() => loadConfig({ HEARTH_FILE_SOURCE_ROOT: everything })).toThrow(/HEARTH_FILE_SOURCE_ROOT must be a folder below the root of the file system/);
    }
  });
});
