import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { invalidParameters } from './errors.ts';

/**
 * HTTP requests Hearth makes to addresses its users give it (feeds and webhooks). They must not become
 * a way to reach what only the server can: every address a host name resolves to is checked when the
 * connection is made (so a name that resolves differently a second later cannot slip through), and
 * private, loopback, link-local and other special addresses are refused unless the operator allows them.
 * Redirects are followed by hand, each hop checked the same way; bodies are capped; everything times out.
 */

export interface OutboundOptions {
  /** Let requests reach private and loopback addresses (an operator's choice; the tests' local servers). */
  allowPrivateAddresses: boolean;
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The URL that answered, after redirects. */
  url: string;
}

/** Why a request could not be made or completed: a message for the admin who configured it. */
export class OutboundError extends Error {
  /** The server had closed the kept-alive connection the request was sent on, before answering it. */
  staleConnection = false;
}

const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;
const DEFAULT_MAX_REDIRECTS = 5;

/** What a refused address is reported as: never the address, which would tell what an internal name resolves to. */
export const PRIVATE_ADDRESS_REFUSED = 'refused: private address';

/** IPv4 ranges that are not the public internet (IANA's special-purpose registry, and multicast). */
const blockedV4 = new net.BlockList();
for (const [address, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blockedV4.addSubnet(address, prefix, 'ipv4');
}

/**
 * IPv6 ranges refused whatever follows their prefix. `::/96` (IPv4-compatible, with `::` and `::1`),
 * `::ffff:0:0:0/96` (IPv4-translated) and `64:ff9b:1::/48` (NAT64 for a local network) only exist to reach
 * IPv4 or local hosts in ways no public service is published at; the others are not globally reachable.
 */
const blockedV6 = new net.BlockList();
for (const [address, prefix] of [
  ['::', 96],
  ['::ffff:0:0:0', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['3fff::', 20],
  ['5f00::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  blockedV6.addSubnet(address, prefix, 'ipv6');
}

/**
 * The IPv4 address an IPv6 address carries in the forms a connection would reach it by: IPv4-mapped
 * (`::ffff:a.b.c.d`), NAT64's well-known prefix (`64:ff9b::a.b.c.d`, how an IPv6-only network with DNS64
 * reaches every IPv4 host) and 6to4 (`2002:AABB:CCDD::`). These are decoded and the IPv4 address checked,
 * rather than all refused, so that public hosts stay reachable through NAT64.
 */
function embeddedIPv4(bytes: number[]): string | null {
  const startsWith = (prefix: number[]) => prefix.every((byte, i) => bytes[i] === byte);
  const dotted = (at: number) => bytes.slice(at, at + 4).join('.');
  if (startsWith([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff])) return dotted(12);
  if (startsWith([0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0])) return dotted(12);
  if (startsWith([0x20, 0x02])) return dotted(2);
  return null;
}

/** The 16 bytes of an IPv6 address (any of its written forms, a zone ignored); null when it is not one. */
function ipv6Bytes(address: string): number[] | null {
  const text = address.replace(/%.*$/, '');
  if (!net.isIPv6(text)) return null;
  let groups = text;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    groups = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = groups.includes('::') ? groups.split('::') : [groups, undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const all = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return all.flatMap((group) => {
    const value = parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
}

/** Whether an IP address is one outbound requests may not reach by default. */
export function isSpecialAddress(address: string): boolean {
  if (net.isIPv4(address)) return blockedV4.check(address, 'ipv4');
  const bytes = ipv6Bytes(address);
  if (bytes === null) return true;
  const ipv4 = embeddedIPv4(bytes);
  if (ipv4 !== null) return blockedV4.check(ipv4, 'ipv4');
  return blockedV6.check(address.replace(/%.*$/, ''), 'ipv6');
}

/** Why a URL's host may not be reached, when it is an IP address outbound requests refuse; null otherwise. */
function refusedHost(url: URL, allowPrivateAddresses: boolean): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return !allowPrivateAddresses && net.isIP(host) && isSpecialAddress(host) ? `${host} is a private or special address` : null;
}

/**
 * The URL an admin gives a webhook or a feed, checked as it is registered: `http` or `https`, without a
 * user name or password, and not at a private or special IP address unless the operator allows those; a 400
 * that says why otherwise. A host name is not resolved here: what it resolves to can change, so it is
 * checked whenever a connection is made.
 */
export function readOutboundUrl(given: string, allowPrivateAddresses: boolean): string {
  let url: URL;
  try {
    url = new URL(given.trim());
  } catch {
    throw invalidParameters(`url "${given}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidParameters('url must be an http or https URL');
  if (url.username || url.password) throw invalidParameters('url must not carry a user name or password');
  const refused = refusedHost(url, allowPrivateAddresses);
  if (refused) throw invalidParameters(`url: ${refused}, which Hearth does not reach unless the operator allows it (HEARTH_ALLOW_PRIVATE_FETCH)`);
  return url.toString();
}

/**
 * POST `body` to `url` (webhooks): no redirect is followed (a 3xx is the answer), and the answer's body is
 * read up to the limit (default 64 KiB) and no further.
 */
export function outboundPost(url: string, headers: Record<string, string>, body: string, options: OutboundOptions): Promise<OutboundResponse> {
  return requestOnce(url, headers, { ...options, maxBytes: options.maxBytes ?? 65_536 }, { method: 'POST', body, answerMayBeCut: true });
}

/** GET `url`; redirects followed (each hop checked), the body read up to the limit. */
export async function outboundGet(url: string, headers: Record<string, string>, options: OutboundOptions): Promise<OutboundResponse> {
  let current = url;
  for (let hop = 0; ; hop++) {
    const response = await requestOnce(current, headers, options);
    const location = response.headers.location;
    if (response.status >= 300 && response.status < 400 && response.status !== 304 && location) {
      if (hop >= (options.maxRedirects ?? DEFAULT_MAX_REDIRECTS))
        throw new OutboundError(`more than ${options.maxRedirects ?? DEFAULT_MAX_REDIRECTS} redirects`);
      current = new URL(location, current).toString();
      continue;
    }
    return response;
  }
}

/**
 * Any request (the connectors' platform APIs): `method`, `body`, stopped by `signal`; redirects of a GET or HEAD
 * followed (each hop checked), the body read up to the limit.
 */
export async function outboundRequest(
  url: string,
  request: { method: string; headers: Record<string, string>; body?: Buffer | string; signal?: AbortSignal },
  options: OutboundOptions,
): Promise<OutboundResponse> {
  const follows = request.method === 'GET' || request.method === 'HEAD';
  let current = url;
  for (let hop = 0; ; hop++) {
    const send = () => requestOnce(current, request.headers, options, { method: request.method, body: request.body, signal: request.signal });
    // A kept-alive connection the server closed as it was reused (its idle timeout) never saw the request:
    // a GET or HEAD is sent again, once, on a new one, as Node's documentation advises.
    const response = await send().catch((error: unknown) => {
      if (follows && error instanceof OutboundError && error.staleConnection) return send();
      throw error;
    });
    const location = response.headers.location;
    if (follows && response.status >= 300 && response.status < 400 && response.status !== 304 && location) {
      if (hop >= (options.maxRedirects ?? DEFAULT_MAX_REDIRECTS))
        throw new OutboundError(`more than ${options.maxRedirects ?? DEFAULT_MAX_REDIRECTS} redirects`);
      current = new URL(location, current).toString();
      continue;
    }
    return response;
  }
}

function requestOnce(
  url: string,
  headers: Record<string, string>,
  options: OutboundOptions,
  send: { method: string; body?: string | Buffer; signal?: AbortSignal; answerMayBeCut?: boolean } = { method: 'GET' },
): Promise<OutboundResponse> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.reject(new OutboundError(`"${url}" is not a URL`));
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    return Promise.reject(new OutboundError(`only http and https URLs can be fetched, not ${target.protocol}`));
  if (target.username || target.password) return Promise.reject(new OutboundError('a URL with a user name or password is not fetched'));
  if (refusedHost(target, options.allowPrivateAddresses)) return Promise.reject(new OutboundError(PRIVATE_ADDRESS_REFUSED));
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      target,
      {
        method: send.method,
        headers: {
          'user-agent': 'Hearth (+https://github.com/hearth)',
          ...(send.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(send.body)) }),
          ...headers,
        },
        timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        ...(send.signal ? { signal: send.signal } : {}),
        // Checked at connection time: what the name resolves to now is what is connected to.
        lookup: (hostname, lookupOptions, callback) => {
          dns.lookup(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
            if (error) return callback(error, '', 4);
            const list = addresses as dns.LookupAddress[];
            const refused = options.allowPrivateAddresses ? undefined : list.find((entry) => isSpecialAddress(entry.address));
            if (refused) return callback(new OutboundError(PRIVATE_ADDRESS_REFUSED), '', 4);
            if ((lookupOptions as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
            return callback(null, list[0]!.address, list[0]!.family);
          });
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            if (send.answerMayBeCut) {
              // What a webhook receiver says is only looked at, not needed: its status is the answer.
              response.destroy();
              resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks), url: target.toString() });
              return;
            }
            request.destroy(new OutboundError(`the answer is larger than ${maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks), url: target.toString() }));
        response.on('error', (error) => reject(wrap(error)));
      },
    );
    request.on('timeout', () => request.destroy(new OutboundError(`no answer within ${options.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms`)));
    request.on('error', (error) => {
      const wrapped = wrap(error);
      wrapped.staleConnection = request.reusedSocket && (error as NodeJS.ErrnoException).code === 'ECONNRESET';
      reject(wrapped);
    });
    request.end(send.body);
  });
}

function wrap(error: Error): OutboundError {
  if (error instanceof OutboundError) return error;
  // A system error names the address it failed on (`connect ECONNREFUSED 10.0.0.7:80`): what a name resolved
  // to stays out of what an admin is shown.
  const { syscall, code, address } = error as NodeJS.ErrnoException & { address?: string };
  if (address !== undefined && syscall && code) return new OutboundError(`${syscall} ${code}`);
  return new OutboundError(error.message);
}
