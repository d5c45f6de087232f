import type { FastifyServerOptions } from 'fastify';
import type { TrustProxy } from '../config/config.ts';

/**
 * Fastify's `trustProxy` for HEARTH_TRUST_PROXY, which decides `request.ip`: the address every per-address
 * limit counts (the anonymous API limit, the tracker's, sign-in) and the request log shows. Off, it is the
 * connection's peer and X-Forwarded-For is ignored. A list of addresses is Fastify's own form. Hops are a
 * function: Fastify reads a bare number as trusting no one (it cannot tell a proxy from a client that
 * sends the header itself), so the operator who names hops states that every connection comes through them.
 */
export function trustProxyOption(setting: TrustProxy): FastifyServerOptions['trustProxy'] {
  if (setting === false) return false;
  if ('hops' in setting) {
    const hops = setting.hops;
    // proxy-addr asks about the peer (hop 0), then each X-Forwarded-For entry from the right.
    return (_address: string, hop: number) => hop < hops;
  }
  return setting.addresses;
}
