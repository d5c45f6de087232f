import { sql, type Kysely } from 'kysely';
import type { DB } from '../src/db/schema.ts';
import { systemClock } from '../src/clock.ts';
import { cliActor, cliWriter } from '../src/core/writer.ts';
import { openDatabase } from '../src/db/database.ts';
import { aliasKeySql, nameKeySql } from '../src/modules/merge-suggestions/match-keys.ts';
import { createServices } from '../src/services.ts';
import { createBenchDatabase, type BenchDatabase } from './database.ts';
import type { Figure } from './report.ts';

/**
 * Merge suggestions computed in full (docs/ingestion.md, "Likely duplicates"; docs/performance.md), on a new
 * PostgreSQL database seeded with `contacts` contacts, one in ten a likely duplicate of another (the same
 * name at the same organization, a `+tag` of the same mailbox, or the same name with a GitHub login equal to
 * a Discord username), among names that collide as real ones do:
 * - Hearth: the step's own code path with every contact changed (`recomputeAll`: delete, then the scoring
 *   statement with its reasons, in one transaction);
 * - the baseline: one bare statement, written here, that finds the same candidates (name groups of at most
 *   50, the mailbox without its tag) and weighs the same evidence, writing pairs and scores to a table of
 *   its own, without reasons.
 * They run in turns on the same database, `rounds` times each; the figure is bare time / Hearth's time.
 */
export interface SuggestionsContext {
  serverUrl: string;
  contacts: number;
  rounds?: number;
  log: (line: string) => void;
  trackDatabase: (database: BenchDatabase) => void;
}

const FIRST = 400;
const LAST = 1_000;

export async function measureSuggestions(context: SuggestionsContext): Promise<{ figures: Figure[]; results: Record<string, unknown> }> {
  const { log } = context;
  const made = await createBenchDatabase(context.serverUrl);
  context.trackDatabase(made);
  const database = await openDatabase({ engine: 'postgres', url: made.url, poolSize: 2 });
  try {
    const { db } = database;
    const services = await createServices({
      db,
      clock: systemClock,
      config: { jwtSecret: 'bench', rateLimit: { perToken: 1_000_000, perAddress: 1_000_000, windowSeconds: 60 }, publicUrl: 'http://bench' },
    });
    const { communityId } = await services.communities.create('Suggestions', cliActor());
    const source = await services.sources.create(cliWriter(communityId), { name: 'API' });
    const started = Date.now();
    const n = context.contacts;
    await sql`
      insert into organizations (community_id, name, primary_domain)
      select ${communityId}, 'Company ' || i, 'company' || i || '.com' from generate_series(1, greatest(${n} / 50, 10)) i`.execute(db);
    // Contact i: a name drawn from FIRST × LAST by a hash (so that names collide by chance, as real ones do), an
    // organization for two in three; every tenth contact is a duplicate of the one before it: the same name and
    // organization, except every thirtieth, which has no organization (its pair is a +tag or a handle).
    await sql`
      insert into contacts (community_id, name, full_name, organization_id, city, username, created_at, updated_at)
      select ${communityId}, nm, nm, org, city, null, now(), now()
      from (
        select i,
          'First' || abs(hashint8(p)) % ${FIRST} || ' Last' || abs(hashint8(p + 7777777)) % ${LAST} as nm,
          case when abs(hashint8(p + 3333333)) % 3 = 0 or i % 30 in (0, 29) then null
            else (select min(id) from organizations) + abs(hashint8(p + 5555555)) % greatest(${n} / 50, 10) end as org,
          'City ' || abs(hashint8(p + 9999999)) % 40 as city
        from (select i, case when i % 10 = 0 then i - 1 else i end as p from generate_series(1::bigint, ${n}::bigint) i) g
      ) s
      order by i`.execute(db);
    await sql`
      insert into contact_identities (community_id, type, value, display_value, contact_id, source_id)
      select ${communityId}, 'email', v, v, id, ${source.id} from (
        select c.id, case
          when r % 10 = 0 and r % 30 = 10 then 'person' || (r - 1) || '+news@mail' || (r - 1) % 100 || '.net'
          else 'person' || r || '@mail' || r % 100 || '.net' end as v
        from (select id, row_number() over (order by id) as r from contacts where community_id = ${communityId}) c
      ) e`.execute(db);
    await sql`
      insert into contact_identities (community_id, type, value, display_value, contact_id, source_id)
      select ${communityId}, case when r % 10 = 0 then 'discord' else 'github' end, 'handle' || (case when r % 10 = 0 then r - 1 else r end), 'h', id, ${source.id}
      from (select id, row_number() over (order by id) as r from contacts where community_id = ${communityId}) c
      where r % 30 in (0, 29)`.execute(db);
    await sql`analyze`.execute(db);
    log(`  seeded ${n.toLocaleString('en')} contacts in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    await sql`create unlogged table bench_bare_suggestions (community_id bigint, contact_id bigint, other_id bigint, score numeric, primary key (community_id, contact_id, other_id))`.execute(
      db,
    );
    const hearthMs: number[] = [];
    const bareMs: number[] = [];
    let hearthPairs = 0;
    let barePairs = 0;
    for (let round = 0; round < (context.rounds ?? 3); round += 1) {
      let begin = performance.now();
      hearthPairs = (await services.mergeSuggestions.recomputeAll(communityId)).written;
      hearthMs.push(performance.now() - begin);
      begin = performance.now();
      barePairs = await bareStatement(db, communityId);
      bareMs.push(performance.now() - begin);
      log(`  round ${round + 1}: Hearth ${hearthMs.at(-1)!.toFixed(0)} ms (${hearthPairs} pairs), bare ${bareMs.at(-1)!.toFixed(0)} ms (${barePairs} pairs)`);
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const hearth = median(hearthMs);
    const bare = median(bareMs);
    const figure: Figure = {
      name: 'Merge suggestions, every contact computed',
      measured: `${n.toLocaleString('en')} contacts, median of ${hearthMs.length}`,
      value: hearth,
      baselineName: 'one bare statement',
      baseline: bare,
      unit: 'ms',
      ratio: bare / hearth,
      goal: { op: '>=', value: 0.5 },
    };
    return { figures: [figure], results: { contacts: n, hearthMs, bareMs, hearthPairs, barePairs } };
  } finally {
    await database.close();
  }
}

/** The baseline: the same candidates and weights in one statement, pairs and scores only. */
async function bareStatement(db: Kysely<DB>, c: number): Promise<number> {
  await sql`truncate bench_bare_suggestions`.execute(db);
  const result = await sql`
    insert into bench_bare_suggestions (community_id, contact_id, other_id, score)
    with k as (
      select id, ${nameKeySql('full_name')} as k, organization_id as org, lower(city) as city, lower(username) as username
      from contacts where community_id = ${c} and anonymized_at is null
    ),
    groups as (select k, count(*) as n from k where k is not null and k <> '' group by k),
    named as (select k.*, g.n from k join groups g on g.k = k.k),
    em as (
      select contact_id, value, ${aliasKeySql('value')} as ak, value like '%+%@%' as tagged
      from contact_identities where community_id = ${c} and type = 'email'
    ),
    candidates as (
      select lo, hi, bool_or(alias) as alias from (
        select a.id as lo, b.id as hi, false as alias from named a join named b on b.k = a.k and b.id > a.id where a.n <= 50
        union all
        select least(x.contact_id, y.contact_id), greatest(x.contact_id, y.contact_id), true
        from em x join em y on y.ak = x.ak and y.contact_id <> x.contact_id and x.contact_id < y.contact_id
        where x.tagged or y.tagged
      ) p group by lo, hi
    ),
    handles as (
      select contact_id as id, regexp_replace(value, '#[0-9]{4}$', '') as h from contact_identities
      where community_id = ${c} and type in ('github', 'twitter', 'discord')
      union select id, username from k where username is not null
    ),
    shared_handles as (
      select distinct p.lo, p.hi from candidates p join handles x on x.id = p.lo join handles y on y.id = p.hi and y.h = x.h where length(x.h) >= 3
    ),
    features as (
      select p.lo, p.hi, p.alias, a.k = b.k and a.k <> '' as same_name, a.k <> b.k and a.k <> '' and b.k <> '' as names_differ,
        coalesce(g.n, 2) as n, position(' ' in coalesce(a.k, '')) = 0 as one_word,
        coalesce(a.org = b.org, false) as same_org, coalesce(a.org <> b.org, false) as different_orgs,
        coalesce(a.city = b.city, false) as same_city, h.lo is not null as handle
      from candidates p join k a on a.id = p.lo join k b on b.id = p.hi
      left join groups g on g.k = a.k
      left join shared_handles h on h.lo = p.lo and h.hi = p.hi
    ),
    scored as (
      select lo, hi, round(least(1 - (1 - case when same_name then 0.5 * least(1.0, 2.0 / n) * case when one_word then 0.5 else 1 end else 0 end)
        * (1 - case when same_name and same_org then 0.6 else 0 end)
        * (1 - case when not handle or names_differ then 0 when same_name then 0.7 else 0.4 end)
        * (1 - case when alias and not names_differ then 0.85 else 0 end)
        * (1 - case when same_name and same_city then 0.3 else 0 end),
        case when different_orgs then 0.5 else 1 end)::numeric, 3) as score
      from features
    )
    select ${c}, lo, hi, score from scored
    where score >= 0.7
      and not exists (select 1 from contact_never_merge m where m.community_id = ${c} and m.contact_id = scored.lo and m.other_id = scored.hi)`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
