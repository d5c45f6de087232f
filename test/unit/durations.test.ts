import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import { durationMs, isoDuration } from '../../src/core/durations.ts';

describe('the one duration syntax of options and environment variables', () => {
  it('reads a number with a unit, several units, and ISO 8601 without years or months', () => {
    expect(durationMs('500ms')).toBe(500);
    expect(durationMs('45s')).toBe(45_000);
    expect(durationMs('30m')).toBe(1_800_000);
    expect(durationMs('1h')).toBe(3_600_000);
    expect(durationMs('7d')).toBe(604_800_000);
    expect(durationMs('2w')).toBe(1_209_600_000);
    expect(durationMs('1h30m')).toBe(5_400_000);
    expect(durationMs('1.5h')).toBe(5_400_000);
    expect(durationMs('PT1H')).toBe(3_600_000);
    expect(durationMs('P7D')).toBe(604_800_000);
    expect(durationMs('P1DT12H')).toBe(129_600_000);
    expect(durationMs('pt0.5s')).toBe(500);
  });

  it('reads a bare number in the unit it is given, and refuses one without a unit where none is given', () => {
    expect(durationMs('90', 's')).toBe(90_000);
    expect(durationMs('90', 'm')).toBe(5_400_000);
    expect(durationMs('15000', 'ms')).toBe(15_000);
    expect(durationMs('90')).toBeNull();
  });

  it('refuses what is not a length of time', () => {
    for (const text of ['', 'h', '1x', '1 h', '-1h', '1e3', 'P1M', 'P1Y', 'PT', 'P', 'soon', '1h-']) expect(durationMs(text, 's'), text).toBeNull();
  });

  it('writes a duration back from now as ISO 8601, for the audit log', () => {
    expect(isoDuration('7d')).toBe('P7D');
    expect(isoDuration('1h30m')).toBe('PT1H30M');
    expect(isoDuration('2w')).toBe('P14D');
    expect(isoDuration('1d12h')).toBe('P1DT12H');
    expect(isoDuration('0s')).toBe('PT0S');
    expect(isoDuration('1.5h')).toBe('PT5400S');
    expect(isoDuration('P1M')).toBe('P1M');
    expect(isoDuration('pt1h')).toBe('PT1H');
    expect(isoDuration('last week')).toBeNull();
  });

  it('the environment: every length of time takes the syntax, a bare number its old unit', () => {
    const config = loadConfig({
      HEARTH_JOB_LEASE: '2m',
      HEARTH_STATEMENT_TIMEOUT: '30s',
      HEARTH_RATE_LIMIT_WINDOW: 'PT2M',
      HEARTH_DB_CONNECTION_LIFETIME: '1h',
    });
    expect(config.jobLeaseMs).toBe(120_000);
    expect(config.statementTimeoutMs).toBe(30_000);
    expect(config.rateLimit.windowSeconds).toBe(120);
    expect(config.connectionLifetimeSeconds).toBe(3600);
    const bare = loadConfig({ HEARTH_JOB_LEASE: '60', HEARTH_STATEMENT_TIMEOUT: '2500' });
    expect(bare.jobLeaseMs).toBe(60_000);
    expect(bare.statementTimeoutMs).toBe(2500);
    const llm = loadConfig({ HEARTH_LLM_URL: 'http://127.0.0.1:1/v1', HEARTH_LLM_MODEL: 'm', HEARTH_LLM_TIMEOUT: '90s', HEARTH_LLM_INTERVAL: '0' });
    expect(llm.llm).toMatchObject({ timeoutMs: 90_000, intervalMs: 0 });
    expect(() => loadConfig({ HEARTH_JOB_LEASE: 'soon' })).toThrow(
      new ConfigError(
        'HEARTH_JOB_LEASE must be a duration such as 30s, 15m, 1h, 7d or ISO 8601 (PT1H, P7D) (a bare number is seconds), from 1 s to 1 d; got "soon"',
      ),
    );
    expect(() => loadConfig({ HEARTH_RATE_LIMIT_WINDOW: '2d' })).toThrow(/^HEARTH_RATE_LIMIT_WINDOW must be .* from 1 s to 1 d; got "2d"$/);
  });
});
