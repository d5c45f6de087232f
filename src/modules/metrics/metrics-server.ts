import http from 'node:http';
import type { MetricsService } from './metrics.service.ts';

export interface MetricsServer {
  /** The address it listens on, as http://host:port. */
  url: string;
  close(): Promise<void>;
}

/**
 * `HEARTH_METRICS_PORT`: `/metrics` for every community on a port of its own, without a token, for a
 * Prometheus inside the operator's network. Only GET /metrics answers; the API port is not involved, so
 * its requests are not counted here and its rate limits do not apply to scrapes.
 */
export async function startMetricsServer(
  metrics: MetricsService,
  options: { port: number; host: string; onError(error: unknown): void },
): Promise<MetricsServer> {
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics') return answer(response, 404, 'text/plain; charset=utf-8', 'Only /metrics is served on this port.\n');
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return answer(response, 405, 'text/plain; charset=utf-8', 'GET /metrics\n', { allow: 'GET, HEAD' });
    metrics.render(null).then(
      (text) => answer(response, 200, metrics.contentType, request.method === 'HEAD' ? '' : text),
      (error: unknown) => {
        options.onError(error);
        answer(response, 503, 'text/plain; charset=utf-8', 'The metrics could not be read (the database did not answer); see the log.\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as { port: number };
  return {
    url: `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function answer(response: http.ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}) {
  response.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), ...headers });
  response.end(body);
}
