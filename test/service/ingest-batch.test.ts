import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cliWriter } from '../../src/core/writer.ts';
import { identityHash } from '../../src/modules/identity/identity-values.ts';
import { ingestOneByOne } from '../../src/modules/ingestion/ingest-batch.ts';
import { createIngestionQueue } from '../../src/modules/ingestion/ingestion-queue.ts';
import { readActivityPush, readUserPush, textRead, type PushItem } from '../../src/modules/ingestion/push-item.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { seededRandom } from '../helpers/seeded-random.ts';

/**
 * The set-based batch against the reference: the same pushes stored one at a time (ingestOne, the way
 * single pushes were always stored) and stored in batches of every size through the ingestion queue must
 * leave the same data, compared by natural keys: contacts by what identifies them, activities by their
 * dedup key, organizations by domain, locations by name, with every field, count and link.
 */

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number) {
  const next = seededRandom(seed);
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(list: T[]) => list[Math.floor(next() * list.length)]!,
    chance: (p: number) => next() < p,
  };
}

interface Push {
  kind: 'user' | 'activity';
  source: number;
  body: Record<string, unknown>;
}

const PLACES = ['Berlin, Germany', 'Paris, France', 'Lagos, Nigeria', 'Austin, Texas', 'somewhere nice', 'Tokyo'];
const COMPANIES = ['acme.io', 'globex.com', 'initech.co.uk', null, null];
const TYPES = ['made_post_topic', 'commented_replied', 'starred_repo'];
const WORDS = ['kubernetes', 'postgres', 'ingress', 'helm', 'latency', 'great', 'broken', 'thanks', 'release'];

/** Pushes about `persons` people from three sources, with overlapping identities (merges), threads, repeats. */
function workload(seed: number, persons: number, pushes: number): Push[] {
  const r = random(seed);
  const list: Push[] = [];
  for (let i = 0; i < pushes; i++) {
    const person = r.int(persons);
    const source = r.int(3);
    const user: Record<string, unknown> = { id: `s${source}-p${person}` };
    // Source 0 knows emails, source 1 GitHub handles, source 2 both (and so joins what the others made).
    const company = COMPANIES[person % COMPANIES.length];
    if (source !== 1 || r.chance(0.1)) user.email = company && r.chance(0.7) ? `p${person}@${company}` : `p${person}@gmail.com`;
    if (source !== 0 || r.chance(0.1)) user.github = `gh-p${person}`;
    if (r.chance(0.05)) user.email = 'n/a';
    if (r.chance(0.3)) user.fullName = r.chance(0.8) ? `Person ${person}` : `P. ${person} ${r.int(3)}`;
    if (r.chance(0.2)) user.username = `user-${person}`;
    if (r.chance(0.3)) user.titleAtCompany = r.pick(['Engineer', 'CTO', 'Student']);
    if (r.chance(0.3)) user.rawLocation = r.pick(PLACES);
    if (r.chance(0.1)) user.companyName = r.pick(['Acme', 'Globex', 'Nobody Inc']);
    if (r.chance(0.1)) user.tags = [{ type: 'name', name: r.pick(['vip', 'speaker']) }];
    if (r.chance(0.3)) {
      list.push({ kind: 'user', source, body: user });
      continue;
    }
    const activity = r.int(pushes / 3);
    const body: Record<string, unknown> = {
      id: `a${activity}`,
      activityType: TYPES[activity % TYPES.length],
      user,
      timestamp: new Date(Date.UTC(2026, 0, 1) + r.int(90) * 86_400_000).toISOString(),
      content: { type: r.chance(0.5) ? 'markdown' : 'text', value: Array.from({ length: 3 + r.int(5) }, () => r.pick(WORDS)).join(' ') },
    };
    if (r.chance(0.4)) {
      const parent = r.int(pushes / 3);
      body.parentActivity = { id: `a${parent}`, activityType: r.chance(0.8) ? TYPES[parent % TYPES.length] : undefined };
    }
    if (r.chance(0.3)) body.subSource = { type: 'name', name: r.pick(['#general', '#help']) };
    if (r.chance(0.1)) body.tags = [{ type: 'name', name: 'answered' }];
    list.push({ kind: 'activity', source, body });
  }
  return list;
}

describe.each(ENGINES)('pushes stored in batches (%s)', (engine) => {
  let one: TestApp;
  let batched: TestApp;

  beforeEach(async () => {
    [one, batched] = await Promise.all([createTestApp(engine), createTestApp(engine)]);
  });
  afterEach(async () => {
    await Promise.all([one?.close(), batched?.close()]);
  });

  /** Three sources, made the same way in both apps, and one suppressed email. */
  async function sourcesOf(t: TestApp): Promise<number[]> {
    const writer = cliWriter(t.communityId);
    const other = (await t.services.sources.create(writer, { name: 'Second' })).id;
    const third = (await t.services.sources.create(writer, { name: 'Third' })).id;
    await t.services.db
      .insertInto('suppressions')
      .values({ community_id: t.communityId, identity_type: 'email', value_hash: identityHash({ type: 'email', value: 'p7@gmail.com' }) })
      .execute();
    return [t.sourceId, other, third];
  }

  async function itemsOf(t: TestApp, sources: number[], pushes: Push[]): Promise<PushItem[]> {
    const writer = cliWriter(t.communityId);
    const accepts = (type: string) => TYPES.includes(type);
    const items: PushItem[] = [];
    for (const [index, push] of pushes.entries()) {
      const origin = { communityId: t.communityId, sourceId: sources[push.source]!, now: new Date(Date.UTC(2026, 3, 1) + index * 1000) };
      items.push(
        await textRead(
          push.kind === 'user'
            ? await readUserPush(t.services.db, writer, origin, push.body as never)
            : await readActivityPush(t.services.db, writer, origin, push.body as never, accepts),
        ),
      );
    }
    return items;
  }

  /** Everything a push writes, by natural keys. */
  async function snapshot(t: TestApp, sources: number[]) {
    const db = t.services.db;
    const c = t.communityId;
    const source = (id: number | null) => (id === null ? null : sources.indexOf(Number(id)));
    const identities = await db.selectFrom('contact_identities').select(['type', 'value', 'contact_id', 'source_id']).where('community_id', '=', c).execute();
    const profiles = await db
      .selectFrom('source_profiles')
      .select(['source_id', 'external_id', 'contact_id', 'fields'])
      .where('community_id', '=', c)
      .execute();
    const keyOf = new Map<number, string[]>();
    const add = (contactId: number, key: string) => keyOf.set(Number(contactId), [...(keyOf.get(Number(contactId)) ?? []), key]);
    for (const row of identities) add(row.contact_id, `${row.type}:${row.value}`);
    for (const row of profiles) add(row.contact_id, `profile:${source(row.source_id)}:${row.external_id}`);
    const contactKey = (id: number | null) => (id === null ? null : (keyOf.get(Number(id)) ?? [`bare:${id}`]).sort().join(' '));

    const organizations = await db
      .selectFrom('organizations')
      .select(['id', 'name', 'primary_domain', 'member_count', 'source_id'])
      .where('community_id', '=', c)
      .execute();
    const domainOf = new Map(organizations.map((o) => [Number(o.id), o.primary_domain]));
    const contacts = await db
      .selectFrom('contacts')
      .select([
        'id',
        'name',
        'full_name',
        'primary_email',
        'title',
        'company_name',
        'company_website',
        'organization_id',
        'city',
        'region',
        'country',
        'country_code',
        'world_region',
        'raw_location',
        'phone_numbers',
        'activity_count_all',
        'first_activity_at',
        'latest_activity_at',
        'anonymized_at',
      ])
      .where('community_id', '=', c)
      .execute();
    const activities = await db
      .selectFrom('activities')
      .select([
        'id',
        'source_id',
        'activity_type',
        'external_id',
        'contact_id',
        'activity_time',
        'title',
        'content',
        'content_type',
        'sentiment',
        'parent_id',
        'sub_source_id',
      ])
      .where('community_id', '=', c)
      .execute();
    const activityKey = new Map(activities.map((a) => [Number(a.id), `${source(a.source_id)}/${a.activity_type}/${a.external_id}`]));
    const subSources = new Map(
      (await db.selectFrom('sub_sources').select(['id', 'name']).where('community_id', '=', c).execute()).map((s) => [Number(s.id), s.name]),
    );
    const topics = await sql<{ activity_id: number; name: string }>`
      select t.activity_id, p.name from activity_topics t join topics p on p.community_id = t.community_id and p.id = t.topic_id
      where t.community_id = ${c}`.execute(db);
    const tags = await sql<{ entity_type: string; entity_id: number; name: string }>`
      select a.entity_type, a.entity_id, g.name from tag_assignments a join tags g on g.community_id = a.community_id and g.id = a.tag_id
      where a.community_id = ${c}`.execute(db);
    const locations = await db
      .selectFrom('locations')
      .select(['type', 'name', 'member_count'])
      .where('community_id', '=', c)
      .where('member_count', '<>', 0)
      .execute();
    const merges = await db.selectFrom('contact_merges').select(['survivor_id', 'reason']).where('community_id', '=', c).execute();
    const audit = await sql<{ operation: string; count: number }>`
      select operation, count(*)::int as count from audit_log where community_id = ${c} group by operation`.execute(db);

    const sorted = <T>(list: T[]) => list.map((entry) => JSON.stringify(entry)).sort();
    return {
      contacts: sorted(
        contacts.map(({ id, organization_id, ...fields }) => ({
          key: contactKey(id),
          organization: organization_id === null ? null : domainOf.get(Number(organization_id)),
          ...fields,
        })),
      ),
      profiles: sorted(profiles.map((p) => ({ source: source(p.source_id), id: p.external_id, contact: contactKey(p.contact_id), fields: p.fields }))),
      organizations: sorted(organizations.map(({ id: _id, source_id, ...o }) => ({ ...o, source: source(source_id) }))),
      activities: sorted(
        activities.map((a) => ({
          key: activityKey.get(Number(a.id)),
          contact: contactKey(a.contact_id),
          parent: a.parent_id === null ? null : activityKey.get(Number(a.parent_id)),
          subSource: a.sub_source_id === null ? null : subSources.get(Number(a.sub_source_id)),
          time: a.activity_time,
          title: a.title,
          content: a.content,
          contentType: a.content_type,
          sentiment: a.sentiment,
        })),
      ),
      topics: sorted(topics.rows.map((row) => [activityKey.get(Number(row.activity_id)), row.name])),
      tags: sorted(
        tags.rows.map((row) => [
          row.entity_type,
          row.entity_type === 'activity' ? activityKey.get(Number(row.entity_id)) : contactKey(row.entity_id),
          row.name,
        ]),
      ),
      locations: sorted(locations),
      merges: sorted(merges.map((m) => [contactKey(m.survivor_id), m.reason.replace(/source \d+/g, 'source')])),
      audit: sorted(audit.rows),
    };
  }

  it.each([
    { what: 'few people, many merges', persons: 80, count: 700 },
    { what: 'many new people', persons: 500, count: 800 },
  ])('leaves the same data as storing the pushes one at a time, for batches of every size: $what', { timeout: 300_000 }, async ({ persons, count }) => {
    const pushes = workload(20261125 + persons, persons, count);
    const [oneSources, batchedSources] = await Promise.all([sourcesOf(one), sourcesOf(batched)]);

    const reference = await itemsOf(one, oneSources, pushes);
    const expected = [];
    for (let at = 0; at < reference.length; at += 100) {
      const chunk = reference.slice(at, at + 100);
      expected.push(...(await one.services.db.transaction().execute((trx) => ingestOneByOne(trx, chunk))));
    }

    const items = await itemsOf(batched, batchedSources, pushes);
    const queue = createIngestionQueue({ db: batched.services.db, citus: batched.db.database.citus });
    const r = random(7);
    const outcomes = [];
    for (let at = 0; at < items.length;) {
      const size = r.pick([1, 2, 3, 7, 30, 120, 400]);
      outcomes.push(...(await queue.submit(batched.communityId, items.slice(at, at + size))));
      at += size;
    }

    const [want, got] = await Promise.all([snapshot(one, oneSources), snapshot(batched, batchedSources)]);
    expect(got.contacts.length).toBeGreaterThan(40);
    expect(got.merges.length).toBeGreaterThan(0);
    for (const part of Object.keys(want) as (keyof typeof want)[]) expect(got[part], part).toEqual(want[part]);
    // Each push's answer: created, warnings, and whether it was stored.
    const answer = (outcome: { contactId: number | null; created: boolean; merged: number[]; warnings: string[] }) => [
      outcome.contactId === null,
      outcome.created,
      outcome.merged.length,
      outcome.warnings,
    ];
    expect(outcomes.map(answer)).toEqual(expected.map(answer));
  });
});
