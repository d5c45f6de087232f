import type { Config } from '../../config/config.ts';
import { print } from '../command.ts';

/**
 * `hearth serve`: the HTTP service until SIGTERM or SIGINT. SIGTERM drains for HEARTH_SHUTDOWN_GRACE
 * first (readyz 503, requests still served); a second signal exits at once.
 */
export async function runServer(config: Config): Promise<number> {
  // Listen for signals from the start: one that arrives while starting stops the server once it is up,
  // so the database is closed and the data directory unlocked either way.
  let stopRequested: string | null = null;
  let onSignal: (signal: string) => void = (signal) => {
    stopRequested = signal;
  };
  for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => onSignal(signal));

  // Loaded here, so the other commands do not load the web server.
  const { serve } = await import('../../main.ts');
  const server = await serve(config, print);
  await new Promise<void>((resolve) => {
    let signals = 0;
    onSignal = (signal) => {
      signals += 1;
      if (signals > 1) {
        server.app.log.warn(`second ${signal}: exiting without waiting`);
        process.exit(1);
      }
      // SIGTERM (an orchestrator's stop) drains first; Ctrl-C at a terminal has no load balancer to wait for.
      const graceMs = signal === 'SIGTERM' ? config.shutdownGraceMs : 0;
      const closing = () => server.app.log.info(`${signal}: finishing requests in flight, then stopping`);
      if (graceMs > 0) server.app.log.info(`${signal}: draining: /readyz answers 503, requests are served for ${graceMs / 1000} s more, then the server stops`);
      else closing();
      const stopping = graceMs > 0 ? server.drain(graceMs, closing) : server.stop();
      stopping.then(resolve, (error: unknown) => {
        server.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
    };
    if (stopRequested) onSignal(stopRequested);
  });
  return 0;
}
