import { cliWriter } from '../src/core/writer.ts';
import type { Services } from '../src/services.ts';
import { ServerChild } from './ipc.ts';
import { measureThroughput, median } from './load.ts';
import type { Figure } from './report.ts';

/**
 * The website tracker's figure (docs/performance.md): page views sent as /t.js sends them (a text/plain
 * JSON body, no token) to `POST /community/v1/t/{key}/pageview`, against a bare Fastify endpoint that does
 * the same insert (bare-server.ts `/bare-pageview/:key`: find the live key, insert the visit), in
 * alternating rounds at the bench's concurrency.
 */

export interface TrackerContext {
  services: Services;
  setup: { communityId: number; sourceId: number };
  hearth: ServerChild;
  env: Record<string, string>;
  concurrency: number;
  seconds: number;
  rounds: number;
  log: (line: string) => void;
  track: (child: ServerChild) => void;
}

/** Browsers in the run: page views mix returning browsers with new ones, as a site's do. */
const BROWSERS = 5000;
/** The site whose pages send: the tracker records pages of its allowed origins only. */
const SITE = 'https://www.example.com';

let runs = 0;
function pageViews(url: string, concurrency: number, seconds: number) {
  const run = `${Date.now().toString(36)}${runs++}`;
  return measureThroughput(url, {
    concurrency,
    seconds,
    post: {
      body: (n) => ({ url: `${SITE}/docs/page-${n % 200}?run=${run}`, anonymousId: `bench-browser-${(n * 7919) % BROWSERS}` }),
      status: 202,
      contentType: 'text/plain;charset=UTF-8',
      origin: SITE,
    },
  });
}

export async function measureTracker(context: TrackerContext): Promise<{ figures: Figure[]; results: unknown }> {
  const { services, setup, hearth, env, concurrency, seconds, rounds, log } = context;
  const { tracker } = await services.trackers.enable(cliWriter(setup.communityId), setup.sourceId, { allowedOrigins: [SITE] });
  const bare = await ServerChild.start('bare-server.ts', { ...env, BENCH_BARE_TRACKER: '1' });
  context.track(bare);
  const hearthUrl = `${hearth.url}/community/v1/t/${tracker.key}/pageview`;
  const bareUrl = `${bare.url}/bare-pageview/${tracker.key}`;

  log(`\nWebsite tracker page views: ${rounds} rounds of ${seconds} s each, ${concurrency} connections…`);
  // Warm-ups long enough for Hearth's larger code path to be compiled and its statements prepared on every
  // pooled connection: with 2 s, its first rounds were still climbing.
  await pageViews(hearthUrl, concurrency, Math.min(5, seconds));
  await pageViews(bareUrl, concurrency, Math.min(5, seconds));
  const hearthRates: number[] = [];
  const bareRates: number[] = [];
  const errors = { hearth: 0, bare: 0 };
  for (let round = 0; round < rounds; round++) {
    for (const which of round % 2 === 0 ? (['hearth', 'bare'] as const) : (['bare', 'hearth'] as const)) {
      const result = await pageViews(which === 'hearth' ? hearthUrl : bareUrl, concurrency, seconds);
      (which === 'hearth' ? hearthRates : bareRates).push(result.perSecond);
      errors[which] += result.errors;
    }
    log(`  round ${round + 1}: Hearth ${hearthRates.at(-1)!.toFixed(0)} page views/s, bare ${bareRates.at(-1)!.toFixed(0)}/s`);
  }
  await bare.stop();
  if (errors.hearth || errors.bare) log(`  answers other than 202: Hearth ${errors.hearth}, bare ${errors.bare}`);
  const hearthRate = median(hearthRates);
  const bareRate = median(bareRates);
  const figure: Figure = {
    name: `tracker page views, ${concurrency} connections, vs bare insert`,
    measured: 'Hearth',
    value: hearthRate,
    baselineName: 'bare',
    baseline: bareRate,
    unit: 'req/s',
    ratio: hearthRate / bareRate,
    goal: { op: '>=', value: 0.5 },
  };
  return { figures: [figure], results: { hearth: hearthRates, bare: bareRates, errors } };
}
