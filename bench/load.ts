import http from 'node:http';

/**
 * A small load generator on node:http with keep-alive connections: what the bench needs (sequential
 * latency samples, fixed-concurrency throughput) without a dependency. Each worker of a throughput run is
 * one connection that sends its next request as soon as the previous answer is read, as autocannon does.
 */

export interface Response {
  status: number;
  body: string;
  ms: number;
}

export interface Client {
  /** GET with the client's token, or with `token` when given. */
  get(url: string, token?: string): Promise<Response>;
  /** POST of a JSON body, with the client's token. The time includes serializing the body. */
  post(url: string, body: unknown, token?: string): Promise<Response>;
  /** POST of bytes exactly as given, with these headers only (a platform's signed webhook delivery). */
  postRaw(url: string, body: string | Buffer, headers: http.OutgoingHttpHeaders): Promise<Response>;
  close(): void;
}

/**
 * `contentType`: of the bodies sent (default JSON; the tracker's beacons are `text/plain`). `origin`: the
 * `Origin` header a browser sends with a page's beacons (the tracker refuses pages of other origins).
 */
export function createClient(options: { token?: string; connections?: number; contentType?: string; origin?: string } = {}): Client {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections ?? 1 });
  const send = (
    method: 'GET' | 'POST',
    url: string,
    token: string | undefined,
    body?: unknown,
    raw?: { body: string | Buffer; headers: http.OutgoingHttpHeaders },
  ) => {
    const headers: http.OutgoingHttpHeaders = raw ? { ...raw.headers } : token ? { authorization: `Bearer ${token}` } : {};
    if (options.origin) headers.origin = options.origin;
    return new Promise<Response>((resolve, reject) => {
      const started = performance.now();
      const payload = raw ? raw.body : body === undefined ? undefined : JSON.stringify(body);
      if (payload !== undefined) {
        headers['content-type'] ??= options.contentType ?? 'application/json';
        headers['content-length'] = Buffer.byteLength(payload);
      }
      const request = http.request(url, { method, agent, headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started }));
        response.on('error', reject);
      });
      request.on('error', reject);
      request.end(payload);
    });
  };
  return {
    get: (url, token = options.token) => send('GET', url, token),
    post: (url, body, token = options.token) => send('POST', url, token, body),
    postRaw: (url, body, headers) => send('POST', url, undefined, undefined, { body, headers }),
    close: () => agent.destroy(),
  };
}

/** A response that must be a 200, parsed; anything else stops the bench with what the server said. */
export async function getJson<T>(client: Client, url: string): Promise<T> {
  const response = await client.get(url);
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${response.body.slice(0, 500)}`);
  return JSON.parse(response.body) as T;
}

export interface Summary {
  count: number;
  p50: number;
  p95: number;
  mean: number;
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Nearest-rank percentiles of a sample of milliseconds. */
export function summarize(values: number[]): Summary {
  if (values.length === 0) return { count: 0, p50: NaN, p95: NaN, mean: NaN };
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
  return { count: sorted.length, p50: at(0.5), p95: at(0.95), mean: sorted.reduce((s, v) => s + v, 0) / sorted.length };
}

/**
 * Latency of two requests measured side by side: after `warmup` rounds, `samples` rounds of one request
 * of each, in alternating order (A B, B A, ...), one at a time. Alternating spreads whatever else the machine
 * does over both equally, so their ratio holds even on a busy machine. Every answer must be a 200.
 */
export async function compareLatency(
  client: Client,
  urls: { a: string; b: string },
  options: { warmup: number; samples: number },
): Promise<{ a: Summary; b: Summary }> {
  const times = { a: [] as number[], b: [] as number[] };
  for (let round = 0; round < options.warmup + options.samples; round++) {
    const order = round % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const);
    for (const which of order) {
      const response = await client.get(urls[which]);
      if (response.status !== 200) throw new Error(`GET ${urls[which]} answered ${response.status}: ${response.body.slice(0, 500)}`);
      if (round >= options.warmup) times[which].push(response.ms);
    }
  }
  return { a: summarize(times.a), b: summarize(times.b) };
}

export interface Throughput {
  requests: number;
  /** Answers other than 200, and failed connections. */
  errors: number;
  seconds: number;
  perSecond: number;
  latency: Summary;
}

/**
 * `concurrency` keep-alive connections, each sending its next request once the last is answered, for
 * `seconds`. Connection i sends `tokens[i % tokens.length]` when tokens are given (one client per token),
 * else `token`.
 */
export async function measureThroughput(
  url: string,
  options: {
    token?: string;
    tokens?: string[];
    concurrency: number;
    /** How long the run lasts; or `count`, how many requests it sends (whichever ends it first, if both). */
    seconds?: number;
    count?: number;
    /** POST the n-th body of the run instead of a GET, expecting `status` (a push: 202). */
    post?: { body: (n: number) => unknown; status: number; contentType?: string; origin?: string };
    /** POST the n-th request's bytes and headers as given (a signed delivery), expecting `status`. */
    raw?: { request: (n: number) => { body: string | Buffer; headers: http.OutgoingHttpHeaders }; status: number };
  },
): Promise<Throughput> {
  const client = createClient({ token: options.token, connections: options.concurrency, contentType: options.post?.contentType, origin: options.post?.origin });
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const deadline = options.seconds === undefined ? Infinity : started + options.seconds * 1000;
  const count = options.count ?? Infinity;
  let sent = 0;
  const worker = async (_: unknown, index: number) => {
    const token = options.tokens?.length ? options.tokens[index % options.tokens.length] : options.token;
    while (sent < count && performance.now() < deadline) {
      const n = sent++;
      try {
        let response: Response;
        if (options.raw) {
          const { body, headers } = options.raw.request(n);
          response = await client.postRaw(url, body, headers);
        } else response = options.post ? await client.post(url, options.post.body(n), token) : await client.get(url, token);
        if (response.status === (options.raw?.status ?? options.post?.status ?? 200)) latencies.push(response.ms);
        else errors++;
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  client.close();
  return { requests: latencies.length, errors, seconds, perSecond: latencies.length / seconds, latency: summarize(latencies) };
}

/**
 * Throughput of each series in `rounds` rounds, the order rotating per round, after a 2 s warm-up of each,
 * so that what else the machine does falls on all of them alike. `perSecond(name)` is the median of a
 * series' rounds.
 */
export async function throughputRounds<S extends string>(
  series: Record<S, { url: string; token?: string; tokens?: string[] }>,
  options: { concurrency: number; seconds: number; rounds: number },
  log: (line: string) => void,
): Promise<{ rounds: Record<S, Throughput>[]; perSecond: (name: S) => number }> {
  const order = Object.keys(series) as S[];
  for (const name of order) await measureThroughput(series[name].url, { ...series[name], concurrency: options.concurrency, seconds: 2 });
  const rounds: Record<S, Throughput>[] = [];
  for (let round = 0; round < options.rounds; round++) {
    const result = {} as Record<S, Throughput>;
    for (let i = 0; i < order.length; i++) {
      const name = order[(i + round) % order.length]!;
      result[name] = await measureThroughput(series[name].url, { ...series[name], concurrency: options.concurrency, seconds: options.seconds });
    }
    rounds.push(result);
    log(
      `  round ${round + 1}: ` +
        order.map((name) => `${name} ${result[name].perSecond.toFixed(0)} req/s${result[name].errors ? ` (${result[name].errors} errors)` : ''}`).join(', '),
    );
    // A series whose requests fail measures its failures: the figure would mean nothing.
    const failing = order.filter((name) => result[name].errors > 0);
    if (failing.length)
      throw new Error(`throughput round ${round + 1}: requests failed for ${failing.map((name) => `${name} (${result[name].errors})`).join(', ')}`);
  }
  return { rounds, perSecond: (name) => median(rounds.map((r) => r[name].perSecond)) };
}

/**
 * Open-loop load: `rate` requests a second for `seconds`, each sent at its scheduled time whether or not the
 * earlier ones were answered (as a platform sends webhooks), over as many keep-alive connections as are
 * needed. A request's latency counts from its scheduled time, so a server that falls behind shows it (no
 * coordinated omission). Every answer must have `status`; others are counted as errors.
 */
export async function measureOpenLoop(
  url: string,
  options: { rate: number; seconds: number; request: (n: number) => { body: string | Buffer; headers: http.OutgoingHttpHeaders }; status: number },
): Promise<Throughput & { late: number }> {
  const client = createClient({ connections: 512 });
  const total = Math.round(options.rate * options.seconds);
  const latencies: number[] = [];
  let errors = 0;
  // Requests the generator itself sent more than 5 ms after their time (it could not keep up): then the figure is the generator's.
  let late = 0;
  const started = performance.now();
  const pending: Promise<void>[] = [];
  for (let n = 0; n < total; n++) {
    const due = started + (n * 1000) / options.rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    if (performance.now() - due > 5) late++;
    const { body, headers } = options.request(n);
    pending.push(
      client.postRaw(url, body, headers).then(
        (response) => {
          if (response.status === options.status) latencies.push(performance.now() - due);
          else errors++;
        },
        () => {
          errors++;
        },
      ),
    );
  }
  await Promise.all(pending);
  const seconds = (performance.now() - started) / 1000;
  client.close();
  return { requests: latencies.length, errors, seconds, perSecond: latencies.length / seconds, latency: summarize(latencies), late };
}
