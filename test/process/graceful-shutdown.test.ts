import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/test-database.ts';
import { Processes, call, freePort, freshDatabaseEnv, readLock } from '../helpers/process.ts';

/**
 * SIGTERM stops `hearth serve` gracefully: requests the server has taken in are answered (none is cut off),
 * the process exits with 0, and the embedded database's lock is released.
 *
 * Which requests the server took in is read from its own log (LOG_LEVEL=info): Fastify logs "incoming
 * request" with the request ID, and the service keeps a caller's X-Request-Id. A request that was sent but
 * not yet taken in when the server stopped listening may be refused (connection refused or reset before it
 * was read, or 503 while closing); that is expected and not what this test is about.
 */

const BURST = 100;

interface LogLine {
  msg?: string;
  reqId?: string;
}

/** The server's JSON log lines (complete lines only: the output may end in the middle of one). */
function logLines(lines: string[]): LogLine[] {
  return lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as LogLine);
}

type Outcome = { status: number; body: unknown } | { error: string };

/** A POST whose body is sent in two halves: the server takes it in with the first, and waits for the second. */
function slowUpload(url: URL, token: string, body: string) {
  const request = http.request({
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    method: 'POST',
    agent: false,
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      'x-request-id': 'slow-upload',
    },
  });
  const response = new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    request.on('error', reject);
    request.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) as unknown }));
      res.on('error', reject);
    });
  });
  const half = Math.floor(body.length / 2);
  request.write(body.slice(0, half));
  return { response, finish: () => request.end(body.slice(half)) };
}

describe('SIGTERM', () => {
  const processes = new Processes();
  afterEach(() => processes.cleanup());

  it('answers every request taken in, exits with 0 and removes the lock', { timeout: 90_000 }, async () => {
    const dataDir = processes.migratedDataDir();
    // No drain: what is answered once the server closes (the drain before it is the next test's).
    const server = await processes.serve({ HEARTH_DATA_DIR: dataDir, HEARTH_SHUTDOWN_GRACE: '0s' }, { logLevel: 'info' });
    const token = /^ {2}Token: +(\S+)$/m.exec(server.process.stdout)?.[1];
    expect(token).toBeDefined();
    const log = () => logLines(server.process.lines());
    const waitForLog = (what: string, found: (line: LogLine) => boolean) => server.process.waitFor(() => (log().some(found) ? true : undefined), what);

    // A request certainly in flight when SIGTERM arrives: taken in, its body only half sent.
    const upload = slowUpload(new URL(`${server.url}/api/v2/admin/sources`), token!, JSON.stringify({ name: 'Sent during shutdown' }));
    await waitForLog('the upload taken in', (line) => line.msg === 'incoming request' && line.reqId === 'slow-upload');

    const burst: Promise<Outcome>[] = Array.from({ length: BURST }, (_, i) =>
      call(`${server.url}/api/v2/me`, { token, headers: { 'x-request-id': `burst-${i}` } }).then(
        ({ status, body }) => ({ status, body }),
        (error: Error) => ({ error: String((error.cause as { code?: string } | undefined)?.code ?? error.message) }),
      ),
    );
    // SIGTERM as soon as the burst reaches the server, while most of it is still arriving or being served.
    await waitForLog('a burst request taken in', (line) => line.msg === 'incoming request' && line.reqId?.startsWith('burst-') === true);
    server.process.kill('SIGTERM');
    await waitForLog('the SIGTERM acknowledged', (line) => line.msg?.startsWith('SIGTERM: finishing requests in flight') === true);

    // The server is stopping, and still reads the rest of the upload and answers it.
    upload.finish();
    const uploaded = await upload.response;
    expect(uploaded.status).toBe(201);
    expect(uploaded.body).toMatchObject({ success: true, data: { name: 'Sent during shutdown' } });

    const outcomes = await Promise.all(burst);
    // A guard against a hang (not a measure of speed): before src/app.ts answered requests in flight with
    // `Connection: close`, their idle keep-alive connections held the shutdown for Fastify's 72 s timeout.
    const exit = await server.process.waitForExit(40_000);
    const takenIn = new Set(log().flatMap((line) => (line.msg === 'incoming request' && line.reqId ? [line.reqId] : [])));
    const accepted = outcomes.flatMap((outcome, i) => (takenIn.has(`burst-${i}`) ? [{ id: `burst-${i}`, outcome }] : []));
    expect(accepted.length).toBeGreaterThan(0);
    for (const { id, outcome } of accepted) {
      expect(outcome, id).toMatchObject({ status: 200, body: { success: true } });
    }
    // What was not taken in was refused, never half-answered.
    for (const [i, outcome] of outcomes.entries()) {
      if (takenIn.has(`burst-${i}`)) continue;
      if ('status' in outcome) expect(outcome.status, `burst-${i}`).toBe(503);
    }

    expect(exit).toEqual({ code: 0, signal: null });
    expect(readLock(dataDir)).toBeNull();
    expect(server.process.stderr).toBe('');
  });
});

/**
 * Shutdown (docs/operations.md, Probes and shutdown): on SIGTERM, /readyz fails at once while the server goes
 * on serving for HEARTH_SHUTDOWN_GRACE (so a load balancer takes it out of rotation before it closes); then it
 * closes, answering what it took in.
 */
describe.each(ENGINES)('SIGTERM with a grace period (%s)', (engine) => {
  const processes = new Processes();
  afterEach(() => processes.cleanup());

  const GRACE_MS = 3000;

  it('fails /readyz at once, serves through the grace period, completes the request in flight and exits 0', { timeout: 90_000 }, async () => {
    const database = await freshDatabaseEnv(engine, processes);
    try {
      const metricsPort = await freePort();
      const server = await processes.serve({ ...database.env, HEARTH_SHUTDOWN_GRACE: 'PT3S', HEARTH_METRICS_PORT: String(metricsPort) }, { logLevel: 'info' });
      const token = /^ {2}Token: +(\S+)$/m.exec(server.process.stdout)?.[1];
      expect(token).toBeDefined();
      const log = () => logLines(server.process.lines());
      const waitForLog = (what: string, found: (line: LogLine) => boolean) => server.process.waitFor(() => (log().some(found) ? true : undefined), what);

      // The metrics port of a serving process: every community, the process's own figures, no token.
      const announced = await server.process.waitForLine(/^Metrics \(Prometheus, every community, no token\): (\S+)$/);
      expect(announced[1]).toBe(`http://127.0.0.1:${metricsPort}/metrics`);
      const metrics = await call(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(metrics.status).toBe(200);
      expect(metrics.body).toMatch(/^process_cpu_user_seconds_total \d/m);
      expect(metrics.body).toMatch(new RegExp(`^hearth_db_pool_max\\{engine="${engine}"\\} ${engine === 'pglite' ? 1 : 10}$`, 'm'));

      expect(await call(`${server.url}/readyz`)).toMatchObject({ status: 200, body: { status: 'ready' } });
      const upload = slowUpload(new URL(`${server.url}/api/v2/admin/sources`), token!, JSON.stringify({ name: 'Sent before SIGTERM' }));
      await waitForLog('the upload taken in', (line) => line.msg === 'incoming request' && line.reqId === 'slow-upload');

      const signalled = Date.now();
      server.process.kill('SIGTERM');
      await waitForLog('the drain begun', (line) => line.msg?.startsWith('SIGTERM: draining') === true);
      // Not ready at once, while still up and serving: a new request is answered, and told to connect again.
      expect(await call(`${server.url}/readyz`)).toMatchObject({ status: 503, body: { status: 'draining' } });
      expect(Date.now() - signalled).toBeLessThan(GRACE_MS);
      expect(await call(`${server.url}/healthz`)).toMatchObject({ status: 200, body: { status: 'ok' } });
      const during = await requestOnce(`${server.url}/api/v2/me`, token!);
      expect(during.status).toBe(200);
      expect(during.connection).toBe('close');
      expect(server.process.running).toBe(true);

      // The grace period over, the server closes, still reading and answering the upload taken in before.
      await waitForLog('the close begun', (line) => line.msg?.startsWith('SIGTERM: finishing requests in flight') === true);
      expect(Date.now() - signalled).toBeGreaterThanOrEqual(GRACE_MS - 100);
      upload.finish();
      const uploaded = await upload.response;
      expect(uploaded.status).toBe(201);
      expect(uploaded.body).toMatchObject({ success: true, data: { name: 'Sent before SIGTERM' } });

      expect(await server.process.waitForExit(40_000)).toEqual({ code: 0, signal: null });
      expect(server.process.stderr).toBe('');
      if (engine === 'pglite') expect(readLock(database.env.HEARTH_DATA_DIR!)).toBeNull();
    } finally {
      await processes.cleanup();
      await database.drop();
    }
  });
});

/** One GET on a connection of its own: its status and its Connection header (which fetch does not show). */
function requestOnce(url: string, token: string): Promise<{ status: number; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: false, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection }));
    });
    request.on('error', reject);
  });
}
