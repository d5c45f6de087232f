import { captureQueries, cursorOfPage, exactListOf, firstDifference, listUrl, pickListStatement } from './harness.ts';
import { ServerChild } from './ipc.ts';
import { compareLatency, createClient, getJson, throughputRounds } from './load.ts';
import type { BenchOptions } from './options.ts';
import { latencyFigure, type Figure } from './report.ts';

/**
 * `npm run bench -- --only prospector`: `GET /api/v2/prospector-contacts` with a lightFilter of three
 * clauses over the seeded prospector contacts (bench/prospector-seed.ts), measured as the contacts list is
 * (docs/performance.md): the filtered page 1 against the unfiltered one, a deep page of the filtered list
 * (reached by its cursors) against its page 1, and the filtered page 1's throughput against a bare Fastify
 * endpoint running the statement Hearth ran for it.
 */

const PATH = '/api/v2/prospector-contacts';

/**
 * A prospecting search: leaders (seniority any of Director, VP, C-Level) who know Kubernetes or Go (skills
 * any), in the United States (location.country eq). About one contact in sixty of the seed passes all three.
 */
export const PROSPECTOR_FILTER = {
  type: 'and',
  clauses: [
    { type: 'stringListFilter', field: 'seniority', params: { op: 'any', value: ['Director', 'VP', 'C-Level'] } },
    { type: 'stringListFilter', field: 'skills', params: { op: 'any', value: ['Kubernetes', 'Go'] } },
    { type: 'stringFilter', field: 'location.country', params: { op: 'eq', value: 'United States' } },
  ],
};

/** `page`: the deep page, at most this one, and no further than the filtered list's last full page. */
export type ProspectorBenchOptions = Pick<BenchOptions, 'limit' | 'page' | 'warmup' | 'samples' | 'concurrency' | 'seconds' | 'rounds'>;

export async function measureProspector(
  options: ProspectorBenchOptions,
  context: { token: string; hearth: ServerChild; env: Record<string, string>; log: (line: string) => void; track: (child: ServerChild) => void },
): Promise<{ figures: Figure[]; results: unknown }> {
  const { hearth, log } = context;
  const client = createClient({ token: context.token });
  const lightFilter = JSON.stringify(PROSPECTOR_FILTER);
  const list = (params: Record<string, string | undefined>) => listUrl(hearth.url, PATH, '', { limit: String(options.limit), ...params });
  const unfiltered = list({});
  const filtered = list({ lightFilter });

  const counted = await getJson<{ meta: { recordCount: number } }>(client, list({ lightFilter, cols: 'recordCount', limit: '1' }));
  const all = await getJson<{ meta: { recordCount: number } }>(client, list({ cols: 'recordCount', limit: '1' }));
  const matching = counted.meta.recordCount;
  const deep = Math.min(options.page, Math.floor(matching / options.limit));
  if (deep < 2) throw new Error(`the filter keeps ${matching} of ${all.meta.recordCount} prospector contacts: too few for a deep page (seed more)`);
  log(
    `\nProspector contacts: the filter keeps ${matching.toLocaleString('en')} of ${all.meta.recordCount.toLocaleString('en')}; the deep page is page ${deep}.`,
  );

  await getJson(client, filtered);
  const captured = await captureQueries(hearth, client, filtered);
  const statement = pickListStatement(captured.queries, 'prospector_contacts', options.limit);
  log(
    `Hearth ran ${captured.queries.length} statements for the filtered page 1; the bare endpoint runs:\n  ${statement.sql}\n  parameters ${JSON.stringify(statement.parameters)}`,
  );
  const bare = await ServerChild.start('bare-server.ts', {
    ...context.env,
    BENCH_BARE_QUERY: JSON.stringify(statement),
    BENCH_BARE_LIST: JSON.stringify(exactListOf(captured.body, options.limit)),
  });
  context.track(bare);
  // The baseline must give Hearth's answer, or the ratio compares different work.
  const bareClient = createClient();
  const difference = firstDifference(await getJson<unknown>(client, filtered), await getJson<unknown>(bareClient, `${bare.url}/bare`));
  bareClient.close();
  if (difference) throw new Error(`the bare endpoint does not answer what Hearth answers for the filtered prospector contacts (${difference})`);

  const deepUrl = list({ lightFilter, cursor: await cursorOfPage(client, (cursor) => list({ lightFilter, cursor }), deep) });
  const filtering = await compareLatency(client, { a: unfiltered, b: filtered }, options);
  log(`  p50 unfiltered page 1 ${filtering.a.p50.toFixed(2)} ms, filtered ${filtering.b.p50.toFixed(2)} ms`);
  const paging = await compareLatency(client, { a: filtered, b: deepUrl }, options);
  log(`  p50 filtered page 1 ${paging.a.p50.toFixed(2)} ms, page ${deep} ${paging.b.p50.toFixed(2)} ms`);

  log(`Throughput of the filtered page 1: ${options.rounds} rounds of ${options.seconds} s per server at ${options.concurrency} connections…`);
  const throughput = await throughputRounds({ hearth: { url: filtered, token: context.token }, bare: { url: `${bare.url}/bare` } }, options, log);
  await bare.stop();
  client.close();

  const figures: Figure[] = [
    latencyFigure('prospector contacts: 3-clause lightFilter vs none', { measured: 'p50 filtered', baseline: 'p50 unfiltered' }, filtering, 3),
    latencyFigure(`prospector contacts, filtered: page ${deep} vs page 1`, { measured: `p50 page ${deep}`, baseline: 'p50 page 1' }, paging, 1.3),
    {
      name: 'prospector contacts, filtered: throughput vs bare Fastify',
      measured: 'Hearth',
      value: throughput.perSecond('hearth'),
      baselineName: 'bare',
      baseline: throughput.perSecond('bare'),
      unit: 'req/s',
      ratio: throughput.perSecond('hearth') / throughput.perSecond('bare'),
      goal: { op: '>=', value: 0.7 },
    },
  ];
  return {
    figures,
    results: {
      filter: PROSPECTOR_FILTER,
      matching,
      records: all.meta.recordCount,
      deepPage: deep,
      statements: captured.queries.map((query) => query.sql),
      bareStatement: statement,
      filtering,
      paging,
      throughput: throughput.rounds,
    },
  };
}
