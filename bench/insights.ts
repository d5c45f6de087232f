import { systemClock } from '../src/clock.ts';
import type { LlmConfig } from '../src/config/config.ts';
import { cliActor, cliWriter } from '../src/core/writer.ts';
import type { Database } from '../src/db/database.ts';
import { createWorker } from '../src/jobs/worker.ts';
import { createServices } from '../src/services.ts';
import { stubServer } from '../test/helpers/webhook-receiver.ts';
import type { Figure } from './report.ts';
import { seedCommunity } from './seed.ts';

/**
 * `npm run bench -- --only insights`: the insights job (docs/insights.md) against a local endpoint that
 * answers like a model at once or after a fixed latency, as contacts written per second, against a bare
 * loop posting the same requests to the same endpoint with the same concurrency (the most any caller could
 * get from it). The ratio is what the job's own work (reading each batch's digests, building and checking
 * texts, writing each batch) costs: at an instant endpoint all of it shows; at one with a model's latency,
 * whether the job keeps the endpoint busy.
 */

const CONCURRENCY = 4;

interface Endpoint {
  url: string;
  bodies: string[];
  close(): Promise<void>;
}

/** Answers every chat completion with the drafts it was sent, prefixed, after `latencyMs`; keeps the bodies. */
async function startEndpoint(latencyMs: number): Promise<Endpoint> {
  const bodies: string[] = [];
  const endpoint = stubServer((request, response) => {
    bodies.push(request.body);
    const body = JSON.parse(request.body) as { messages: { role: string; content: string }[] };
    const sent = JSON.parse(body.messages[1]!.content) as {
      drafts: { sparkSummary: string | null; recentSparkSummaries: string[]; activateMessage: { title: string; message: string } | null };
    };
    const { drafts } = sent;
    const content = JSON.stringify({
      sparkSummary: drafts.sparkSummary && `Model: ${drafts.sparkSummary}`,
      recentSparkSummaries: drafts.recentSparkSummaries.map((text) => `Model: ${text}`),
      activateMessage: drafts.activateMessage && { title: `Model: ${drafts.activateMessage.title}`, message: `Model: ${drafts.activateMessage.message}` },
    });
    const answer = () => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content } }] }));
    };
    if (latencyMs > 0) setTimeout(answer, latencyMs);
    else answer();
  });
  endpoint.server.keepAliveTimeout = 60_000;
  return { url: `${await endpoint.start()}/v1`, bodies, close: endpoint.stop };
}

/** Posts every body to the endpoint, `concurrency` at a time: requests per second. */
async function bareLoop(url: string, bodies: string[], concurrency: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++]!;
        const response = await fetch(`${url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        await response.text();
      }
    }),
  );
  return bodies.length / ((performance.now() - started) / 1000);
}

export async function measureInsights(context: {
  db: Database['db'];
  log: (line: string) => void;
  /** The seed and the endpoint's latencies (test/process/bench.test.ts runs it small). */
  size?: { contacts: number; activities: number; latenciesMs: number[] };
}): Promise<{ figures: Figure[]; results: unknown }> {
  const { db, log } = context;
  const {
    contacts: CONTACTS,
    activities: ACTIVITIES,
    latenciesMs: LATENCIES_MS,
  } = context.size ?? { contacts: 2_000, activities: 40_000, latenciesMs: [0, 50] };
  const bootstrap = await createServices({
    db,
    clock: systemClock,
    config: { jwtSecret: null, publicUrl: 'http://127.0.0.1', rateLimit: { perToken: 1, perAddress: 1, windowSeconds: 60 } },
  });
  const { communityId } = await bootstrap.communities.create('Insights bench', cliActor());
  const source = await bootstrap.sources.create(cliWriter(communityId), { name: 'API' });
  log(`\nInsights: seeding a community of ${CONTACTS.toLocaleString('en')} contacts and ${ACTIVITIES.toLocaleString('en')} activities…`);
  await seedCommunity(db, { communityId, apiSourceId: source.id, contacts: CONTACTS, activities: ACTIVITIES, now: systemClock.now() });

  const figures: Figure[] = [];
  const runs: unknown[] = [];
  for (const latencyMs of LATENCIES_MS) {
    const endpoint = await startEndpoint(latencyMs);
    try {
      // A model name of its own per run: the input hashes differ, so every due contact is asked again.
      const llm: LlmConfig = { url: endpoint.url, key: null, model: `bench-${latencyMs}ms`, timeoutMs: 60_000, concurrency: CONCURRENCY, intervalMs: 0 };
      const services = await createServices({
        db,
        clock: systemClock,
        config: { jwtSecret: null, publicUrl: 'http://127.0.0.1', rateLimit: { perToken: 1, perAddress: 1, windowSeconds: 60 }, llm },
      });
      const { jobId } = await services.insights.refresh(cliWriter(communityId), { all: true });
      const worker = createWorker({ db, clock: systemClock, queue: services.jobs });
      const started = performance.now();
      await worker.runUntilIdle();
      const seconds = (performance.now() - started) / 1000;
      const job = await services.jobs.findById(jobId);
      const result = job?.result as { contacts: { total: number; written: number; failed: number } } | null;
      if (job?.status !== 'completed' || !result || result.contacts.failed > 0)
        throw new Error(`the insights run did not complete cleanly: ${JSON.stringify(job)}`);
      const written = result.contacts.written;
      const hearth = written / seconds;
      const bodies = endpoint.bodies.slice();
      const bare = await bareLoop(endpoint.url, bodies, CONCURRENCY);
      log(
        `  endpoint answering after ${latencyMs} ms: the job wrote ${written} contacts in ${seconds.toFixed(1)} s (${hearth.toFixed(0)}/s); the bare loop posted the same ${bodies.length} requests at ${bare.toFixed(0)}/s`,
      );
      runs.push({ latencyMs, contacts: written, seconds, hearthPerSecond: hearth, barePerSecond: bare });
      figures.push({
        name: `insights job, endpoint answering in ${latencyMs} ms`,
        measured: 'contacts written',
        value: hearth,
        baselineName: 'bare loop, same requests',
        baseline: bare,
        unit: 'items/s',
        ratio: hearth / bare,
        goal: { op: '>=', value: latencyMs === 0 ? 0.25 : 0.8 },
      });
    } finally {
      await endpoint.close();
    }
  }
  return { figures, results: { contacts: CONTACTS, activities: ACTIVITIES, concurrency: CONCURRENCY, runs } };
}
