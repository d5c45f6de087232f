import { sql, type Kysely } from 'kysely';
import { systemClock } from '../src/clock.ts';
import { cliWriter } from '../src/core/writer.ts';
import type { DB } from '../src/db/schema.ts';
import { createWorker } from '../src/jobs/worker.ts';
import type { Services } from '../src/services.ts';
import type { ServerChild } from './ipc.ts';
import { measureThroughput, median } from './load.ts';
import { activityPush } from './push.ts';
import type { Figure } from './report.ts';

/**
 * The lead score figures (docs/performance.md, docs/lead-scores.md), on the seeded community:
 * - a full recompute of a contact definition (weights on six activity types, one of them per sub-source,
 *   and four fit rules), as the job runs it, against one set-based statement computing the same activity
 *   sums (the same weights, matched the same way, decayed the same way) in the same run: the first
 *   recompute (every score inserted) and one after a change (every score updated);
 * - what scoring adds to a push: pushes with the definition enabled against disabled, alternating, on the
 *   batch route and as single pushes; then how long the worker's background step takes to compute the
 *   contacts those pushes marked.
 */

export interface LeadScoreContext {
  db: Kysely<DB>;
  services: Services;
  setup: { communityId: number; sourceId: number; token: string };
  hearth: ServerChild;
  seconds: number;
  rounds: number;
  log: (line: string) => void;
}

const HALF_LIFE_DAYS = 30;
const LOOKBACK_DAYS = 365;

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

export async function measureLeadScores(context: LeadScoreContext): Promise<{ figures: Figure[]; results: unknown }> {
  const { db, services, setup, hearth, seconds, rounds, log } = context;
  const { communityId } = setup;
  const github = await sql<{ id: number }>`select id from sources where community_id = ${communityId} and name = 'GitHub'`.execute(db);
  const tag = await sql<{ id: number }>`select id from tags where community_id = ${communityId} and deleted_at is null order by id limit 1`.execute(db);
  const weights = [
    { activityType: 'starred_repo', weight: 3 },
    ...(github.rows[0] ? [{ activityType: 'starred_repo', sourceId: Number(github.rows[0].id), subSource: 'hearth/hearth', weight: 5 }] : []),
    { activityType: 'pr_merged', weight: 10 },
    { activityType: 'issue_comment', weight: 2 },
    { activityType: 'slack_message', weight: 1 },
    { activityType: 'forum_accepted_answer', weight: 8 },
    { activityType: 'product_login', weight: 0.5 },
  ];
  const definition = {
    name: 'Bench engagement',
    entityType: 'contact' as const,
    halfLifeDays: HALF_LIFE_DAYS,
    lookbackDays: LOOKBACK_DAYS,
    activityCap: 100,
    weights,
    fit: [
      { field: 'titleSeniority' as const, values: ['c_level', 'vp', 'director'], points: 20 },
      { field: 'organizationSize' as const, min: 500, points: 10 },
      { field: 'country' as const, values: ['US', 'DE', 'GB'], points: 5 },
      ...(tag.rows[0] ? [{ field: 'tag' as const, tagId: `l_${tag.rows[0].id}`, points: 5 }] : []),
    ],
  };
  const writer = cliWriter(communityId);
  const worker = createWorker({ db, clock: systemClock, queue: services.jobs });

  // The baseline: the activity sums of every contact in one statement, weights matched as the scorer matches them.
  const subSource = await sql<{ id: number }>`
    select s.id from sub_sources s where s.community_id = ${communityId} and s.source_id = ${github.rows[0]?.id ?? 0} and s.name = 'hearth/hearth'`.execute(db);
  const w = weights.map((weight, n) => ({
    n,
    activity_type: weight.activityType,
    source_id: 'sourceId' in weight ? weight.sourceId : null,
    sub_source_id: 'subSource' in weight ? (subSource.rows[0]?.id ?? -1) : null,
    weight: weight.weight,
  }));
  const baseline = async () => {
    const now = new Date();
    const since = new Date(now.getTime() - LOOKBACK_DAYS * 86_400_000);
    const { rows } = await sql<{ contacts: number }>`
      with w as (select * from jsonb_to_recordset(${JSON.stringify(w)}::jsonb) as w(n int, activity_type text, source_id bigint, sub_source_id bigint, weight float8)),
      sums as (
        select a.contact_id, sum(coalesce(w3.weight, w2.weight, w1.weight)
          * power(0.5::float8, greatest(0::float8, extract(epoch from (${now}::timestamptz - a.activity_time))::float8 / 86400) / ${HALF_LIFE_DAYS}::float8)) as activity
        from activities a
        left join w w3 on w3.activity_type = a.activity_type and w3.source_id = a.source_id and w3.sub_source_id = a.sub_source_id
        left join w w2 on w2.activity_type = a.activity_type and w2.source_id = a.source_id and w2.sub_source_id is null
        left join w w1 on w1.activity_type = a.activity_type and w1.source_id is null
        where a.community_id = ${communityId} and a.activity_time > ${since}
          and a.activity_type = any(${[...new Set(weights.map((weight) => weight.activityType))]}::text[])
          and coalesce(w3.n, w2.n, w1.n) is not null
        group by a.contact_id
      )
      select count(*)::int as contacts from sums`.execute(db);
    return rows[0]!.contacts;
  };

  log('\nLead scores: a full recompute of a contact definition against one statement computing the same activity sums…');
  const sums: number[] = [];
  let summed = 0;
  for (let i = 0; i < 3; i++) {
    const run = await timed(baseline);
    sums.push(run.ms);
    summed = run.value;
  }
  log(`  one statement: ${summed.toLocaleString('en')} contacts' sums, ${sums.map((ms) => `${(ms / 1000).toFixed(2)} s`).join(', ')}`);
  const created = await services.leadScoreAdmin.create(writer, definition);
  const first = await timed(() => worker.runUntilIdle());
  const job = await services.jobs.findById(created.recomputeJobId!);
  log(`  first recompute (job ${job?.id}, ${job?.status}): ${(first.ms / 1000).toFixed(2)} s, ${JSON.stringify(job?.result)}`);
  await services.leadScoreAdmin.update(writer, Number(created.id.slice(3)), { halfLifeDays: HALF_LIFE_DAYS + 1 });
  const second = await timed(() => worker.runUntilIdle());
  log(`  recompute after a change: ${(second.ms / 1000).toFixed(2)} s`);
  // Back to the rules the baseline computes, for the push runs (a third full recompute, not measured).
  await services.leadScoreAdmin.update(writer, Number(created.id.slice(3)), { halfLifeDays: HALF_LIFE_DAYS });
  await worker.runUntilIdle();
  const baselineMs = median(sums);

  // Pushes with the definition enabled against disabled (set in SQL, so no recompute job starts).
  const scoreId = Number(created.id.slice(3));
  const enable = (enabled: boolean) =>
    sql`update lead_score_definitions set enabled = ${enabled} where community_id = ${communityId} and id = ${scoreId}`.execute(db);
  let runs = 0;
  const batchUrl = `${hearth.url}/community/v1/source/${setup.sourceId}/activities`;
  const singleUrl = `${hearth.url}/community/v1/source/${setup.sourceId}/activity`;
  const batch = async () => {
    const run = `ls${Date.now().toString(36)}${runs++}`;
    const result = await measureThroughput(batchUrl, {
      token: setup.token,
      concurrency: 2,
      seconds,
      post: { body: (n) => Array.from({ length: 1000 }, (_, k) => activityPush(run, n * 1000 + k)), status: 202 },
    });
    return result.perSecond * 1000;
  };
  const single = async () => {
    const run = `lss${Date.now().toString(36)}${runs++}`;
    return (await measureThroughput(singleUrl, { token: setup.token, concurrency: 8, seconds, post: { body: (n) => activityPush(run, n), status: 202 } }))
      .perSecond;
  };
  log(
    `Pushes with the lead score enabled and disabled, alternating, ${rounds} rounds of ${seconds} s each (batch route, 2 connections; single pushes, 8 connections)…`,
  );
  await enable(false);
  await batch();
  const rates = { batchOn: [] as number[], batchOff: [] as number[], singleOn: [] as number[], singleOff: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? [true, false] : [false, true];
    for (const on of order) {
      await enable(on);
      (on ? rates.batchOn : rates.batchOff).push(await batch());
      (on ? rates.singleOn : rates.singleOff).push(await single());
    }
    log(
      `  round ${round + 1}: batch ${rates.batchOn.at(-1)!.toFixed(0)} vs ${rates.batchOff.at(-1)!.toFixed(0)} activities/s, ` +
        `single ${rates.singleOn.at(-1)!.toFixed(0)} vs ${rates.singleOff.at(-1)!.toFixed(0)} pushes/s (enabled vs disabled)`,
    );
  }
  await enable(true);
  const marked = Number((await sql<{ n: number }>`select count(*)::int as n from lead_score_dirty where community_id = ${communityId}`.execute(db)).rows[0]!.n);
  const step = await timed(() => worker.runSteps());
  log(`  background step: ${marked.toLocaleString('en')} marked contacts computed in ${(step.ms / 1000).toFixed(2)} s`);

  const ratio = (name: string, on: number[], off: number[], unit: Figure['unit']): Figure => ({
    name,
    measured: 'enabled',
    value: median(on),
    baselineName: 'disabled',
    baseline: median(off),
    unit,
    ratio: median(on) / median(off),
    goal: { op: '>=', value: 0.9 },
  });
  const figures: Figure[] = [
    {
      name: 'lead score full recompute vs one statement of the same sums',
      measured: 'recompute',
      value: first.ms,
      baselineName: 'one statement',
      baseline: baselineMs,
      unit: 'ms',
      ratio: first.ms / baselineMs,
      goal: { op: '<=', value: 5 },
    },
    {
      name: 'lead score recompute after a change vs one statement',
      measured: 'recompute',
      value: second.ms,
      baselineName: 'one statement',
      baseline: baselineMs,
      unit: 'ms',
      ratio: second.ms / baselineMs,
      goal: { op: '<=', value: 5 },
    },
    ratio('batch pushes with a lead score enabled vs disabled', rates.batchOn, rates.batchOff, 'items/s'),
    ratio('single pushes (8 connections) with a lead score enabled vs disabled', rates.singleOn, rates.singleOff, 'req/s'),
  ];
  return {
    figures,
    results: {
      baselineMs: sums,
      summedContacts: summed,
      firstMs: first.ms,
      secondMs: second.ms,
      job: job?.result ?? null,
      pushes: rates,
      step: { marked, ms: step.ms },
    },
  };
}
