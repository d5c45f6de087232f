import { buildApp } from '../src/app.ts';
import { systemClock } from '../src/clock.ts';
import type { Database } from '../src/db/database.ts';
import { createServices } from '../src/services.ts';

/** A rate limit no bench run reaches: the bench measures the requests, not the 429s. */
const HIGH = 10_000_000;

/**
 * Hearth as `hearth serve` builds it over an open database (logger off, rate limit out of the way).
 * HEARTH_ALLOW_PRIVATE_FETCH=1 lets it reach local stand-ins of platforms (the connector figures), as an
 * operator allows it.
 */
export async function benchApp(database: Database) {
  const services = await createServices({
    db: database.db,
    listen: database.listen,
    citus: database.citus,
    clock: systemClock,
    config: {
      jwtSecret: null,
      publicUrl: 'http://127.0.0.1',
      rateLimit: { perToken: HIGH, perAddress: HIGH, trackerPerKey: HIGH, trackerPerAddress: HIGH, windowSeconds: 60 },
      allowPrivateFetch: ['1', 'true', 'yes', 'on'].includes((process.env.HEARTH_ALLOW_PRIVATE_FETCH ?? '').toLowerCase()),
    },
  });
  const app = await buildApp({ services, publicUrl: 'http://127.0.0.1', logger: false });
  return { services, app };
}
