import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseDurationMs } from '../../src/config/config.ts';

/** Issue #15, operations: the shutdown grace period and the metrics port, as the environment gives them. */
describe('operations settings', () => {
  it('reads durations as 10s, 1m, 500ms, 1h, ISO 8601 or seconds', () => {
    expect(parseDurationMs('10s')).toBe(10_000);
    expect(parseDurationMs('1m')).toBe(60_000);
    expect(parseDurationMs('500ms')).toBe(500);
    expect(parseDurationMs('1.5s')).toBe(1500);
    expect(parseDurationMs('1h')).toBe(3_600_000);
    expect(parseDurationMs('PT10S')).toBe(10_000);
    expect(parseDurationMs('pt1m30s')).toBe(90_000);
    expect(parseDurationMs('PT1H')).toBe(3_600_000);
    expect(parseDurationMs('15')).toBe(15_000);
    expect(parseDurationMs('0')).toBe(0);
    for (const bad of ['', 's', '10 s', '-1s', 'PT', 'P1D', '1d', 'ten seconds', '10sec']) expect(parseDurationMs(bad), bad).toBeNull();
  });

  it('drains for 10 s by default, and refuses a grace period it cannot read, naming the variable', () => {
    expect(loadConfig({}).shutdownGraceMs).toBe(10_000);
    expect(loadConfig({ HEARTH_SHUTDOWN_GRACE: '30s' }).shutdownGraceMs).toBe(30_000);
    expect(loadConfig({ HEARTH_SHUTDOWN_GRACE: 'PT0S' }).shutdownGraceMs).toBe(0);
    expect(() => loadConfig({ HEARTH_SHUTDOWN_GRACE: 'soon' })).toThrow(ConfigError);
    expect(() => loadConfig({ HEARTH_SHUTDOWN_GRACE: 'soon' })).toThrow(/HEARTH_SHUTDOWN_GRACE must be a duration .*got "soon"/);
    expect(() => loadConfig({ HEARTH_SHUTDOWN_GRACE: '2h' })).toThrow(/up to 60 minutes/);
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
});
