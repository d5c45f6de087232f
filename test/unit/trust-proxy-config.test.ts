import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.ts';

describe('HEARTH_TRUST_PROXY', () => {
  it('is off unless set', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    for (const off of ['', '0', 'false', 'off']) expect(loadConfig({ HEARTH_TRUST_PROXY: off }).trustProxy, off).toBe(false);
  });

  it('reads a number of proxies, or their addresses and ranges', () => {
    expect(loadConfig({ HEARTH_TRUST_PROXY: '1' }).trustProxy).toEqual({ hops: 1 });
    expect(loadConfig({ HEARTH_TRUST_PROXY: '2' }).trustProxy).toEqual({ hops: 2 });
    expect(loadConfig({ HEARTH_TRUST_PROXY: '10.0.0.2' }).trustProxy).toEqual({ addresses: ['10.0.0.2'] });
    expect(loadConfig({ HEARTH_TRUST_PROXY: ' 10.0.0.0/8, fd00::/8 ,loopback,::1' }).trustProxy).toEqual({
      addresses: ['10.0.0.0/8', 'fd00::/8', 'loopback', '::1'],
    });
  });

  it('refuses what it cannot read, and trusting every sender, naming the variable', () => {
    for (const bad of ['true', 'yes', '11', '10.0.0.0/33', 'fd00::/129', '10.0.0', 'proxy.example', '10.0.0.0/8/1', '10.0.0.1,,10.0.0.2', '10.0.0.0/x']) {
      expect(() => loadConfig({ HEARTH_TRUST_PROXY: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ HEARTH_TRUST_PROXY: bad }), bad).toThrow(/^HEARTH_TRUST_PROXY must be a number of proxies/);
    }
  });
});
