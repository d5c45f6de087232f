import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';

/**
 * HTTP requests Hearth makes to addresses its users give it (feeds; later webhooks). They must not become
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
export class OutboundError extends Error {}

const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;
const DEFAULT_MAX_REDIRECTS = 5;

const blocked = new net.BlockList();
for (const [address, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(address, prefix, 'ipv4');
}
for (const [address, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['2001:db8::', 32], ['64:ff9b::', 96]] as const) {
  blocked.addSubnet(address, prefix, 'ipv6');
}

/** Whether an IP address is one outbound requests may not reach by default. */
export function isSpecialAddress(address: string): boolean {
  const family = net.isIPv4(address) ? 'ipv4' : net.isIPv6(address) ? 'ipv6' : null;
  if (family === null) return true;
  // An IPv4 address written as IPv6 (::ffff:127.0.0.1) is checked as the IPv4 address it is.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return blocked.check(mapped[1]!, 'ipv4');
  return blocked.check(address, family);
}

/**
 * POST `body` to `url` (webhooks): no redirect is followed (a 3xx is the answer), and the answer's body is
 * read up to the limit (default 64 KiB) and no further.
 */
export function outboundPost(url: string, headers: Record<string, string>, body: string, options: OutboundOptions): Promise<OutboundResponse> {
  return requestOnce(url, headers, { ...options, maxBytes: options.maxBytes ?? 65_536 }, { method: 'POST', body });
}

/** GET `url`; redirects followed (each hop checked), the body read up to the limit. */
export async function outboundGet(url: string, headers: Record<string, string>, options: OutboundOptions): Promise<OutboundResponse> {
  let current = url;
  for (let hop = 0; ; hop++) {
    const response = await requestOnce(current, headers, options);
    const location = response.headers.location;
    if (response.status >= 300 && response.status < 400 && response.status !== 304 && location) {
      if (hop >= (options.maxRedirects ?? DEFAULT_MAX_REDIRECTS)) throw new OutboundError(`more than ${options.maxRedirects ?? DEFAULT_MAX_REDIRECTS} redirects`);
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
  send: { method: 'GET' | 'POST'; body?: string } = { method: 'GET' },
): Promise<OutboundResponse> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.reject(new OutboundError(`"${url}" is not a URL`));
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return Promise.reject(new OutboundError(`only http and https URLs can be fetched, not ${target.protocol}`));
  if (target.username || target.password) return Promise.reject(new OutboundError('a URL with a user name or password is not fetched'));
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host) && !options.allowPrivateAddresses && isSpecialAddress(host)) {
    return Promise.reject(new OutboundError(`${host} is a private or special address, which Hearth does not fetch from`));
  }
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
        // Checked at connection time: what the name resolves to now is what is connected to.
        lookup: (hostname, lookupOptions, callback) => {
          dns.lookup(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
            if (error) return callback(error, '', 4);
            const list = addresses as dns.LookupAddress[];
            const refused = options.allowPrivateAddresses ? undefined : list.find((entry) => isSpecialAddress(entry.address));
            if (refused) return callback(new OutboundError(`${hostname} resolves to ${refused.address}, a private or special address, which Hearth does not fetch from`), '', 4);
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
            if (send.method === 'POST') {
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
    request.on('error', (error) => reject(wrap(error)));
    request.end(send.body);
  });
}

function wrap(error: Error): OutboundError {
  return error instanceof OutboundError ? error : new OutboundError(error.message);
}
