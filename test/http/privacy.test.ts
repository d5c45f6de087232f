import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import type { DB } from '../../src/db/schema.ts';
import { createWorker, type Worker } from '../../src/jobs/worker.ts';
import { ERASED_COLUMNS } from '../../src/modules/contacts/contact-columns.ts';
import { identityHash } from '../../src/modules/identity/identity-values.ts';
import { erasedExternalId } from '../../src/modules/identity/identity-values.ts';
import { findSuppressed } from '../../src/modules/privacy/suppression.repository.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { sweep } from '../helpers/sweep.ts';
import { cliActor, cliWriter } from '../../src/core/writer.ts';

/**
 * Removal requests (docs/behaviour.md, Removal; docs/ingestion.md, Erasure): DELETE /community/v1/user/{email}
 * and DELETE /community/v1/user?email=, answered once the request and its erasure job are stored; the job
 * erases every matching contact of the community, and a scan of every table afterwards finds none of the
 * person's data.
 */

const DAY = 86_400_000;

describe.each(ENGINES)('removal requests (%s)', (engine) => {
  let t: TestApp;
  let db: Kysely<DB>;
  let worker: Worker;
  const clock = new ManualClock(new Date());

  beforeAll(async () => {
    t = await createTestApp(engine, { clock });
    db = t.services.db;
    worker = createWorker({ db, clock, queue: t.services.jobs });
  });
  afterAll(() => t.close());

  const remove = (url: string, token: string | null = t.token) =>
    t.app.inject({ method: 'DELETE', url, headers: token ? { authorization: `Bearer ${token}` } : {} });

  const requests = () => db.selectFrom('removal_requests').selectAll().where('community_id', '=', t.communityId).orderBy('id').execute();

  const jti = (token: string) => (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { jti: string }).jti;

  describe('the routes', () => {
    it('DELETE /user/{email}: 200 {"status":"success"}, the request stored with its job and suppression', async () => {
      const token = await t.issueToken(['privacy:write']);
      const response = await remove('/community/v1/user/Someone.Else%40Example.org', token);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ status: 'success' });

      const stored = (await requests()).at(-1)!;
      const hash = identityHash({ type: 'email', value: 'someone.else@example.org' });
      expect(stored).toMatchObject({
        email: 'Someone.Else@Example.org',
        email_hash: hash,
        status: 'queued',
        requested_by: jti(token),
        requested_at: clock.now(),
        deadline_at: new Date(clock.now().getTime() + 15 * DAY),
        completed_at: null,
      });
      const job = await db
        .selectFrom('jobs')
        .selectAll()
        .where('community_id', '=', t.communityId)
        .where('kind', '=', 'privacy.erase')
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      // The job names the request, never the address.
      expect(job).toMatchObject({ status: 'queued', payload: { removalRequestId: stored.id } });
      const suppressed = await findSuppressed(db, t.communityId, [{ type: 'email', value: 'someone.else@example.org' }]);
      expect([...suppressed]).toEqual(['email:someone.else@example.org']);
      await worker.runUntilIdle();
    });

    it('DELETE /user?email=: the same; an unencoded + (a space) is read as +', async () => {
      const response = await remove('/community/v1/user?email=first+tag%40example.org');
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ status: 'success' });
      expect((await requests()).at(-1)).toMatchObject({ email: 'first+tag@example.org', status: 'queued' });
      expect((await remove('/community/v1/user?email=second%2Btag%40example.org')).statusCode).toBe(200);
      expect((await requests()).at(-1)).toMatchObject({ email: 'second+tag@example.org' });
      await worker.runUntilIdle();
    });

    it('needs privacy:write (or write); anything else is 403 {"status":"forbidden"}', async () => {
      for (const scopes of [['contacts:read'], ['read'], ['sources:write', 'contacts:write'], ['admin']]) {
        const response = await remove('/community/v1/user/a%40example.org', await t.issueToken(scopes));
        expect(response.statusCode, scopes.join(' ')).toBe(403);
        expect(response.json()).toMatchObject({ status: 'forbidden', reason: expect.stringMatching(/privacy:write/) });
      }
      for (const url of ['/community/v1/user/a%40example.org', '/community/v1/user?email=a%40example.org']) {
        const response = await remove(url, null);
        expect(response.statusCode).toBe(403);
        expect(response.json()).toMatchObject({ status: 'forbidden' });
      }
      expect((await remove('/community/v1/user/a%40example.org', await t.issueToken(['write']))).statusCode).toBe(200);
      await worker.runUntilIdle();
    });

    it('a malformed or missing address is a core 400 {reason, docs, detail}, and nothing is stored', async () => {
      const before = (await requests()).length;
      for (const url of [
        '/community/v1/user/not-an-email',
        '/community/v1/user/n%2Fa',
        '/community/v1/user/a%40b',
        '/community/v1/user?email=nobody',
        '/community/v1/user?email=',
        '/community/v1/user',
        '/community/v1/user?mail=a%40example.org',
        '/community/v1/user?email=a%40example.org&extra=1',
      ]) {
        const response = await remove(url);
        expect(response.statusCode, url).toBe(400);
        expect(response.json(), url).toEqual({ reason: expect.any(String), docs: expect.any(String), detail: expect.any(String) });
      }
      const invalid = await remove('/community/v1/user/not-an-email');
      expect(invalid.json()).toMatchObject({ reason: 'invalid-parameters', detail: expect.stringMatching(/not-an-email.*not a valid email address/) });
      expect(await requests()).toHaveLength(before);
    });

    it("hashes the sender's own user ID, and a later push with that ID alone stores nothing", async () => {
      const push = (payload: Record<string, unknown>) =>
        t.app.inject({ method: 'POST', url: `/community/v1/source/${t.sourceId}/user`, headers: { authorization: `Bearer ${t.token}` }, payload });
      const pushed = await push({ id: 'u-4711', email: 'plain.id@example.org', fullName: 'Plain Id' });
      expect(pushed.statusCode).toBe(202);
      expect((await remove('/community/v1/user/plain.id%40example.org')).statusCode).toBe(200);
      await worker.runUntilIdle();
      const ids = (await db.selectFrom('source_profiles').select('external_id').where('community_id', '=', t.communityId).execute()).map(
        (row) => row.external_id,
      );
      expect(ids).not.toContain('u-4711');
      expect(ids).toContain(erasedExternalId('u-4711'));

      const contacts = async () => (await db.selectFrom('contacts').select('id').where('community_id', '=', t.communityId).execute()).length;
      const before = await contacts();
      const again = await push({ id: 'u-4711', fullName: 'Plain Id', bio: 'back again' });
      expect(again.statusCode).toBe(202);
      expect(again.json()).toMatchObject({ contactId: null, warnings: [expect.stringMatching(/removed|erased|anonymized/i)] });
      expect(await contacts()).toBe(before);
    });

    it('a request whose address matches no contact completes with nothing erased', async () => {
      expect((await remove('/community/v1/user/ghost%40example.org')).statusCode).toBe(200);
      expect(await worker.runUntilIdle()).toBe(1);
      expect((await requests()).at(-1)).toMatchObject({
        status: 'completed',
        email: null,
        completed_at: clock.now(),
        erased: { contacts: 0, identities: 0, sourceProfiles: 0, customFieldValues: 0, activities: 0, websiteVisits: 0 },
      });
    });
  });

  describe('the erasure', () => {
    // Alice's data, and what may be found of her anywhere after the erasure: nothing (lowercase needles).
    const NEEDLES = ['liddell', 'gh-user-4711', 'alice-codes', 'alice_tweets', 'alice#0042', 'wonderland-alt', '7946 0958', 'rabbit hole', 'looking-glass'];
    let other: { communityId: number; sourceId: number };
    let alice: number;
    let aliceTwin: number;
    let bob: number;
    let foreignAlice: number;
    let githubSource: number;
    let snapshotBefore: { bob: unknown; foreign: unknown };

    beforeAll(async () => {
      other = { communityId: (await t.services.communities.create('Other', cliActor())).communityId, sourceId: 0 };
      other.sourceId = (await t.services.sources.create(cliWriter(other.communityId), { name: 'API' })).id;
      githubSource = (await t.services.sources.create(cliWriter(t.communityId), { name: 'GitHub' })).id;

      const org = await insert(db, 'organizations', { community_id: t.communityId, name: 'Acme', primary_domain: 'acme.example', member_count: 1 });
      alice = await seedAlice(db, { communityId: t.communityId, sourceId: t.sourceId, githubSource, organizationId: org });
      // A second contact shows the address as its primary email without holding the identity (an import).
      aliceTwin = await insert(db, 'contacts', {
        community_id: t.communityId,
        name: 'A. Liddell',
        primary_email: 'ALICE.LIDDELL@wonder.example',
      });
      await insert(db, 'contact_identities', {
        community_id: t.communityId,
        type: 'github',
        value: 'wonderland-alt',
        display_value: 'Wonderland-Alt',
        contact_id: aliceTwin,
      });
      bob = await seedBob(db, t.communityId, t.sourceId);
      // Alice in another community: the same address and handles, untouched by this community's request.
      const otherGithub = (await t.services.sources.create(cliWriter(other.communityId), { name: 'GitHub' })).id;
      foreignAlice = await seedAlice(db, { communityId: other.communityId, sourceId: other.sourceId, githubSource: otherGithub, organizationId: null });
      snapshotBefore = { bob: await snapshot(db, t.communityId, bob), foreign: await snapshot(db, other.communityId, foreignAlice) };
    });

    it('answers before the erasure runs; the job then erases every matching contact', async () => {
      const scanBefore = await scan(db, NEEDLES, other.communityId);
      // The scan sees Alice everywhere she is stored (which proves it looks in the right places).
      expect(Object.keys(scanBefore).sort()).toEqual(
        expect.arrayContaining([
          'activities.content',
          'activities.title',
          'activities.url',
          'contact_identities.display_value',
          'contact_identities.value',
          'contact_merges.identity_value',
          'contacts.full_name',
          'contacts.phone_numbers',
          'custom_field_values.value',
          'lead_scores.key_factors',
          'source_profiles.external_id',
          'source_profiles.fields',
          'website_visits.url',
        ]),
      );

      const response = await remove('/community/v1/user/%20Alice.Liddell%40WONDER.example%20');
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ status: 'success' });
      // Stored, answered, and nothing erased yet.
      expect((await requests()).at(-1)).toMatchObject({ status: 'queued', email: 'Alice.Liddell@WONDER.example' });
      expect(await db.selectFrom('contacts').select('name').where('community_id', '=', t.communityId).where('id', '=', alice).executeTakeFirst()).toEqual({
        name: 'Alice Liddell',
      });

      clock.advance(60_000);
      expect(await worker.runUntilIdle()).toBe(1);

      const request = (await requests()).at(-1)!;
      expect(request).toMatchObject({
        status: 'completed',
        email: null,
        email_hash: identityHash({ type: 'email', value: 'alice.liddell@wonder.example' }),
        completed_at: clock.now(),
        erased: { contacts: 2, identities: 6, sourceProfiles: 2, customFieldValues: 1, activities: 2, websiteVisits: 1 },
      });
      const job = await db.selectFrom('jobs').selectAll().where('community_id', '=', t.communityId).orderBy('id', 'desc').executeTakeFirstOrThrow();
      expect(job).toMatchObject({ status: 'completed', attempts: 1, result: { erased: request.erased } });
    });

    it('leaves none of the erased data in any column of any table, except as hashes on the suppression list', async () => {
      expect(await scan(db, NEEDLES, other.communityId)).toEqual({});
      const suppressed = await db.selectFrom('suppressions').select(['identity_type', 'value_hash']).where('community_id', '=', t.communityId).execute();
      const erasedIdentities = [
        { type: 'email', value: 'alice.liddell@wonder.example' },
        { type: 'github', value: 'alice-codes' },
        { type: 'twitter', value: 'alice_tweets' },
        { type: 'linkedin', value: 'alice-liddell-42' },
        { type: 'discord', value: 'alice#0042' },
        { type: 'github', value: 'wonderland-alt' },
      ] as const;
      expect(suppressed).toEqual(
        expect.arrayContaining(erasedIdentities.map((identity) => ({ identity_type: identity.type, value_hash: identityHash(identity) }))),
      );
      const found = await findSuppressed(db, t.communityId, [...erasedIdentities, { type: 'email', value: 'bob@builder.example' }]);
      expect(found).toEqual(new Set(erasedIdentities.map((identity) => `${identity.type}:${identity.value}`)));
      // Suppression is per community.
      expect(await findSuppressed(db, other.communityId, [...erasedIdentities])).toEqual(new Set());
    });

    it('keeps each contact as a shell: same ID, "Anonymized contact", every personal field empty, activities without content', async () => {
      const shell = await db.selectFrom('contacts').selectAll().where('community_id', '=', t.communityId).where('id', '=', alice).executeTakeFirstOrThrow();
      // What erasure leaves in each column is declared with the column (contact-columns.ts); the columns it
      // keeps hold nothing that names the person, and a new column kept must be added here knowingly.
      const left = { null: null, 'empty list': [], 'anonymized name': 'Anonymized contact', 'erasure time': clock.now() };
      expect(shell).toMatchObject({
        ...Object.fromEntries([...ERASED_COLUMNS].map(([column, erased]) => [column, left[erased]])),
        id: alice,
        activity_count_all: 2,
      });
      expect(
        Object.keys(shell)
          .filter((column) => !ERASED_COLUMNS.has(column as keyof typeof shell))
          .sort(),
      ).toEqual(['activity_count_all', 'community_id', 'created_at', 'first_activity_at', 'id', 'latest_activity_at', 'staff']);
      const twin = await db.selectFrom('contacts').selectAll().where('community_id', '=', t.communityId).where('id', '=', aliceTwin).executeTakeFirstOrThrow();
      expect(twin).toMatchObject({ name: 'Anonymized contact', primary_email: null, anonymized_at: clock.now() });

      const identities = await db
        .selectFrom('contact_identities')
        .select('value')
        .where('community_id', '=', t.communityId)
        .where('contact_id', 'in', [alice, aliceTwin])
        .execute();
      expect(identities).toEqual([]);

      // Activities stay, with their type, time and source, without title, content and URL.
      const activities = await db
        .selectFrom('activities')
        .select(['activity_type', 'activity_time', 'external_id', 'title', 'content', 'url'])
        .where('community_id', '=', t.communityId)
        .where('contact_id', '=', alice)
        .orderBy('id')
        .execute();
      expect(activities).toEqual([
        { activity_type: 'pull_request', activity_time: new Date('2025-03-01T10:00:00Z'), external_id: 'pr-1', title: null, content: null, url: null },
        { activity_type: 'comment', activity_time: new Date('2025-03-02T10:00:00Z'), external_id: 'comment-7', title: null, content: null, url: null },
      ]);

      // The sender's IDs are now their hashes (an address and a plain user ID alike), still leading to the shell.
      const profiles = await db
        .selectFrom('source_profiles')
        .select(['source_id', 'external_id', 'fields', 'contact_id'])
        .where('community_id', '=', t.communityId)
        .where('contact_id', '=', alice)
        .orderBy('source_id')
        .execute();
      expect(profiles).toEqual([
        { source_id: t.sourceId, external_id: erasedExternalId('Alice.Liddell@Wonder.example'), fields: {}, contact_id: alice },
        { source_id: githubSource, external_id: erasedExternalId('gh-user-4711'), fields: {}, contact_id: alice },
      ]);

      expect(await count(db, 'custom_field_values', t.communityId, 'entity_id', alice)).toBe(0);
      expect(await count(db, 'website_visits', t.communityId, 'contact_id', alice)).toBe(0);
      // Where the person worked is personal: the shell leaves the organization, which no longer counts it.
      expect(shell.organization_id).toBeNull();
      expect(
        await db
          .selectFrom('organizations')
          .select('member_count')
          .where('community_id', '=', t.communityId)
          .where('primary_domain', '=', 'acme.example')
          .executeTakeFirstOrThrow(),
      ).toEqual({ member_count: 0 });
      // What is not personal stays: tags, segment membership, the merged ID resolving to the shell, the organization.
      expect(await count(db, 'tag_assignments', t.communityId, 'entity_id', alice)).toBe(1);
      expect(await count(db, 'segment_memberships', t.communityId, 'entity_id', alice)).toBe(1);
      expect(
        await db
          .selectFrom('contact_merges')
          .select(['merged_id', 'survivor_id', 'identity_type', 'identity_value'])
          .where('community_id', '=', t.communityId)
          .execute(),
      ).toEqual([{ merged_id: alice + 1000, survivor_id: alice, identity_type: 'github', identity_value: null }]);
      expect(await count(db, 'organizations', t.communityId, 'primary_domain', 'acme.example')).toBe(1);
    });

    it('leaves unrelated contacts and the same person in another community untouched', async () => {
      expect(await snapshot(db, t.communityId, bob)).toEqual(snapshotBefore.bob);
      expect(await snapshot(db, other.communityId, foreignAlice)).toEqual(snapshotBefore.foreign);
      expect(Object.keys(await scan(db, NEEDLES, t.communityId))).toEqual(expect.arrayContaining(['contacts.full_name', 'contact_identities.value']));
    });

    it('a second request for the same address finds nothing left to erase', async () => {
      expect((await remove('/community/v1/user?email=alice.liddell%40wonder.example')).statusCode).toBe(200);
      expect(await worker.runUntilIdle()).toBe(1);
      expect((await requests()).at(-1)).toMatchObject({ status: 'completed', email: null, erased: { contacts: 0 } });
      expect(await scan(db, NEEDLES, other.communityId)).toEqual({});
    });
  });

  describe('a person pushed through the API, with something of theirs in every field', () => {
    // What identifies the person, lowercase: each in a field of a push, a title they carried before and one
    // they carry at the end, a custom value, an activity and a website visit.
    const PLANTED = {
      senderId: 'zq-sender-9001',
      fullName: 'zqmira quellwater',
      firstName: 'zqmira',
      lastName: 'quellwater',
      username: 'zqmira-handle',
      avatar: 'zq-avatar-5512',
      bio: 'zq-bio-teapots',
      email: 'zqmira.mail',
      linkedin: 'zq-linkedin-77',
      github: 'zq-github-77',
      twitter: 'zq_twitter_77',
      discord: 'zqdiscord',
      otherGithub: 'zq-github-alt',
      role: 'zq-role-oracle',
      formerTitle: 'chief zq quokka whisperer',
      title: 'zq grand teapot marshal',
      company: 'zqcorp holdings',
      place: 'zqville burrow',
      phone: '79460123',
      custom: 'zq-custom-secret',
      activityTitle: 'zq-activity-headline',
      content: 'zqcontentword',
      activityUrl: 'zq-thread-404',
      page: 'zq-page-visited',
    };
    const NEEDLES = Object.values(PLANTED);

    it('leaves none of it in any row of any table once the removal request is done, and the title counts right', async () => {
      const field = (
        await db
          .insertInto('custom_fields')
          .values({ community_id: t.communityId, name: 'Pet project', entity_types: ['contact'], value_type: 'string' })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
      const email = `${PLANTED.email}@gmail.com`;
      const user = {
        id: PLANTED.senderId,
        fullName: 'Zqmira Quellwater',
        firstName: 'Zqmira',
        lastName: 'Quellwater',
        username: PLANTED.username,
        avatarUrl: `https://img.example.com/${PLANTED.avatar}.png`,
        bio: `${PLANTED.bio} and more`,
        email,
        linkedin: { type: 'handle', value: PLANTED.linkedin },
        github: { type: 'handle', value: PLANTED.github },
        twitter: `@${PLANTED.twitter}`,
        discord: `${PLANTED.discord}#7777`,
        externalProfiles: [{ url: `https://github.com/${PLANTED.otherGithub}`, name: 'github' }],
        roleAtCompany: PLANTED.role,
        titleAtCompany: 'Chief Zq Quokka Whisperer',
        companyName: 'Zqcorp Holdings',
        rawLocation: 'Zqville Burrow 12',
        phoneNumber: '+44 20 7946 0123',
        customFields: [{ id: field, value: { type: 'string', value: PLANTED.custom } }],
      };
      const pushUser = async (body: Record<string, unknown>) => {
        const response = await t.send('POST', `/community/v1/source/${t.sourceId}/user`, body);
        expect(response.statusCode, response.body).toBe(202);
        return (response.json() as { contactId: string }).contactId;
      };
      const contactId = await pushUser(user);
      // Someone else keeps a title of their own, and shares nothing with the person.
      await pushUser({ id: 'zq-bystander', fullName: 'Bystander', titleAtCompany: 'Quokka Keeper' });
      const titles = async () => {
        const response = await t.get('/api/v2/job-titles?limit=1000');
        expect(response.statusCode, response.body).toBe(200);
        return (response.json() as { data: { value: string }[] }).data.map((row) => row.value);
      };
      // Read once, so the first title is in the counts; then changed, so the log holds both titles.
      expect(await titles()).toEqual(expect.arrayContaining(['Chief Zq Quokka Whisperer', 'Quokka Keeper']));
      expect(await pushUser({ id: PLANTED.senderId, titleAtCompany: 'Zq Grand Teapot Marshal' })).toBe(contactId);

      const activity = await t.send('POST', `/community/v1/source/${t.sourceId}/activity`, {
        id: 'zq-post-1',
        activityType: 'made_post_topic',
        user: { id: PLANTED.senderId },
        activityTitle: { type: 'text', value: `${PLANTED.activityTitle} here` },
        content: { type: 'text', value: `Ask me about ${PLANTED.content} anytime` },
        url: `https://forum.example.org/t/${PLANTED.activityUrl}`,
      });
      expect(activity.statusCode, activity.body).toBe(202);
      const visit = await t.send('POST', `/community/v1/source/${t.sourceId}/website-visits`, [{ url: `https://site.example.org/${PLANTED.page}`, email }]);
      expect(visit.statusCode, visit.body).toBe(202);
      expect(visit.json()).toMatchObject({ results: [{ status: 'accepted', contactId }] });

      // The sweep finds the person where they are, the title counts and their log included.
      const before = await sweep(db, NEEDLES);
      expect(Object.keys(before)).toEqual(
        expect.arrayContaining(['contacts', 'source_profiles', 'activities', 'website_visits', 'job_titles', 'job_title_changes']),
      );
      expect(before.job_titles).toEqual([PLANTED.formerTitle]);
      expect(before.job_title_changes).toEqual(expect.arrayContaining([PLANTED.formerTitle, PLANTED.title]));
      expect(new Set(Object.values(before).flat())).toEqual(new Set(NEEDLES));

      expect((await remove(`/community/v1/user/${encodeURIComponent(email)}`)).statusCode).toBe(200);
      expect(await worker.runUntilIdle()).toBe(1);
      expect((await requests()).at(-1)).toMatchObject({ status: 'completed', erased: { contacts: 1 } });

      expect(await sweep(db, NEEDLES)).toEqual({});
      // The counts are what the contacts make them: the bystander's title, none of the person's.
      const counted = await t.get('/api/v2/job-titles?limit=1000&sort=popularity');
      const listed = (counted.json() as { data: { value: string }[] }).data.map((row) => row.value);
      expect(listed).toContain('Quokka Keeper');
      expect(listed.filter((title) => /zq/i.test(title))).toEqual([]);
      const recount = await sql<{ title: string; records: number }>`
        select title, count(*)::int as records from contacts where community_id = ${t.communityId} and btrim(title) <> '' group by title order by title`.execute(
        db,
      );
      const stored = await sql<{ title: string; records: number }>`
        select title, records from job_titles where community_id = ${t.communityId} order by title`.execute(db);
      expect(stored.rows).toEqual(recount.rows);
    });
  });
});

// Seeding through SQL ------------------------------------------------------------------------------

type Values = Record<string, unknown>;

/** Inserts a row (JSON values as text) and returns its id, when the table has one. */
async function insert(db: Kysely<DB>, table: string, values: Values): Promise<number> {
  const columns = Object.keys(values);
  const row = await sql<{ id?: number }>`
    insert into ${sql.table(table)} (${sql.join(columns.map((column) => sql.ref(column)))})
    values (${sql.join(columns.map((column) => sql`${values[column]}`))})
    returning *
  `.execute(db);
  return row.rows[0]!.id ?? 0;
}

const json = (value: unknown) => JSON.stringify(value);

async function seedAlice(db: Kysely<DB>, at: { communityId: number; sourceId: number; githubSource: number; organizationId: number | null }) {
  const community_id = at.communityId;
  const contact = await insert(db, 'contacts', {
    community_id,
    name: 'Alice Liddell',
    full_name: 'Alice Pleasance Liddell',
    username: 'alice-codes',
    avatar_url: 'https://avatars.example/alice-codes.png',
    bio: 'Down the rabbit hole since 1865. Write to Alice.Liddell@Wonder.example',
    primary_email: 'Alice.Liddell@Wonder.example',
    title: 'Curious engineer',
    role: 'engineering',
    company_name: 'Looking-Glass Ltd',
    company_website: 'https://looking-glass.example',
    organization_id: at.organizationId,
    city: 'Oxford',
    region: 'England',
    country: 'United Kingdom',
    country_code: 'GB',
    world_region: 'Europe',
    raw_location: 'Oxford, UK (rabbit hole)',
    phone_numbers: json([{ type: 'mobile', value: '+44 20 7946 0958' }]),
    job_history: json([{ company: 'Looking-Glass Ltd', title: 'Engineer', startDate: '2020-01-01', endDate: null }]),
    activate_message: json({ title: 'Say hi to Alice Liddell', message: 'She fell down the rabbit hole' }),
    spark_summary: 'Alice Liddell (alice-codes) reviews pull requests',
    recent_spark_summaries: json(['Alice Liddell merged a PR', 'alice_tweets posted']),
    activity_count_all: 2,
  });
  const identities = [
    ['email', 'alice.liddell@wonder.example', 'Alice.Liddell@Wonder.example'],
    ['github', 'alice-codes', 'Alice-Codes'],
    ['twitter', 'alice_tweets', 'Alice_Tweets'],
    ['linkedin', 'alice-liddell-42', 'alice-liddell-42'],
    ['discord', 'alice#0042', 'Alice#0042'],
  ];
  for (const [type, value, display] of identities) {
    await insert(db, 'contact_identities', { community_id, type, value, display_value: display, contact_id: contact, source_id: at.sourceId });
  }
  await insert(db, 'source_profiles', {
    community_id,
    source_id: at.sourceId,
    external_id: 'Alice.Liddell@Wonder.example',
    contact_id: contact,
    fields: json({ email: 'Alice.Liddell@Wonder.example', fullName: 'Alice Liddell', github: 'alice-codes', twitter: '@alice_tweets' }),
  });
  await insert(db, 'source_profiles', {
    community_id,
    source_id: at.githubSource,
    external_id: 'gh-user-4711',
    contact_id: contact,
    fields: json({ login: 'alice-codes', name: 'Alice Liddell', location: 'Oxford (rabbit hole)' }),
  });
  const field = await insert(db, 'custom_fields', { community_id, name: 'Personal site', entity_types: ['member'], value_type: 'url' });
  await insert(db, 'custom_field_values', {
    community_id,
    entity_type: 'contact',
    entity_id: contact,
    custom_field_id: field,
    value: json({ type: 'url', value: 'https://alice-codes.example/liddell' }),
  });
  await insert(db, 'activities', {
    community_id,
    source_id: at.githubSource,
    activity_type: 'pull_request',
    external_id: 'pr-1',
    contact_id: contact,
    activity_time: new Date('2025-03-01T10:00:00Z'),
    title: 'alice-codes opened "Fix the rabbit hole"',
    content: 'Signed-off-by: Alice Liddell <Alice.Liddell@Wonder.example>',
    content_type: 'text',
    url: 'https://github.com/alice-codes/wonder/pull/1',
  });
  await insert(db, 'activities', {
    community_id,
    source_id: at.githubSource,
    activity_type: 'comment',
    external_id: 'comment-7',
    contact_id: contact,
    activity_time: new Date('2025-03-02T10:00:00Z'),
    title: null,
    content: 'Ping me at alice_tweets or alice#0042',
    content_type: 'markdown',
    url: 'https://github.com/alice-codes/wonder/pull/1#comment-7',
  });
  // A contact that merged into Alice through her GitHub handle: its ID resolves to her.
  await insert(db, 'contact_merges', {
    community_id,
    merged_id: contact + 1000,
    survivor_id: contact,
    reason: 'identity',
    identity_type: 'github',
    identity_value: 'alice-codes',
    source_id: at.githubSource,
  });
  await insert(db, 'website_visits', {
    community_id,
    contact_id: contact,
    url: 'https://acme.example/pricing?ref=alice-codes',
    visit_time: new Date('2025-03-03T10:00:00Z'),
  });
  const score = await insert(db, 'lead_score_definitions', { community_id, name: 'Engagement', entity_type: 'contact' });
  await insert(db, 'lead_scores', {
    community_id,
    score_id: score,
    entity_type: 'contact',
    entity_id: contact,
    score: 87,
    percentile: 0.9,
    key_factors: json([{ label: 'GitHub', value: 'alice-codes', strength: 0.8 }]),
  });
  const tag = await insert(db, 'tags', { community_id, name: 'Champion', entity_types: ['member'] });
  await insert(db, 'tag_assignments', { community_id, tag_id: tag, entity_type: 'contact', entity_id: contact });
  const segment = await insert(db, 'segments', { community_id, name: 'Contributors', entity_type: 'contact' });
  await insert(db, 'segment_memberships', { community_id, segment_id: segment, entity_id: contact });
  return contact;
}

async function seedBob(db: Kysely<DB>, communityId: number, sourceId: number) {
  const contact = await insert(db, 'contacts', {
    community_id: communityId,
    name: 'Bob Builder',
    full_name: 'Bob the Builder',
    primary_email: 'bob@builder.example',
    phone_numbers: json([{ type: 'work', value: '+1 555 0100' }]),
  });
  await insert(db, 'contact_identities', {
    community_id: communityId,
    type: 'email',
    value: 'bob@builder.example',
    display_value: 'bob@builder.example',
    contact_id: contact,
  });
  await insert(db, 'source_profiles', {
    community_id: communityId,
    source_id: sourceId,
    external_id: 'bob-1',
    contact_id: contact,
    fields: json({ email: 'bob@builder.example' }),
  });
  await insert(db, 'activities', {
    community_id: communityId,
    source_id: sourceId,
    activity_type: 'comment',
    external_id: 'bob-comment',
    contact_id: contact,
    activity_time: new Date('2025-03-04T10:00:00Z'),
    title: 'Can we fix it?',
    content: 'Yes we can',
    url: 'https://forum.example/t/1',
  });
  return contact;
}

/** Every row that holds something of the contact (to compare before and after). */
async function snapshot(db: Kysely<DB>, communityId: number, contactId: number) {
  const rows = async (table: 'contacts' | 'contact_identities' | 'source_profiles' | 'activities' | 'custom_field_values', column: string) =>
    (
      await sql<Values>`select * from ${sql.table(table)} where community_id = ${communityId} and ${sql.ref(column)} = ${contactId} order by 1, 2, 3`.execute(
        db,
      )
    ).rows;
  return {
    contact: await rows('contacts', 'id'),
    identities: await rows('contact_identities', 'contact_id'),
    profiles: await rows('source_profiles', 'contact_id'),
    activities: await rows('activities', 'contact_id'),
    customFieldValues: await rows('custom_field_values', 'entity_id'),
  };
}

async function count(db: Kysely<DB>, table: string, communityId: number, column: string, value: unknown): Promise<number> {
  const result = await sql<{
    n: number;
  }>`select count(*)::int as n from ${sql.table(table)} where community_id = ${communityId} and ${sql.ref(column)} = ${value}`.execute(db);
  return result.rows[0]!.n;
}

/**
 * Looks for each needle (lowercase) in every text, JSON and array column of every table of the database,
 * leaving out the rows of `exceptCommunity` (where the same person legitimately remains). Returns
 * `table.column` → the needles found there.
 */
async function scan(db: Kysely<DB>, needles: string[], exceptCommunity: number): Promise<Record<string, string[]>> {
  const columns = await sql<{ table: string; column: string; scoped: boolean }>`
    select c.table_name as "table", c.column_name as "column",
      exists (select 1 from information_schema.columns s
              where s.table_schema = c.table_schema and s.table_name = c.table_name and s.column_name = 'community_id') as scoped
    from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
    where c.table_schema = 'public' and t.table_type = 'BASE TABLE'
      and c.data_type in ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY')
    order by 1, 2
  `.execute(db);
  expect(columns.rows.length).toBeGreaterThan(100);
  const found: Record<string, string[]> = {};
  for (const { table, column, scoped } of columns.rows) {
    const where = scoped ? sql`community_id is distinct from ${exceptCommunity}` : sql`true`;
    // A join, not a correlated subquery over the needles, which a Citus cluster cannot run.
    const result = await sql<{ needle: string }>`
      select distinct n.needle from ${sql.table(table)} cross join unnest(${needles}::text[]) as n(needle)
      where ${where} and strpos(lower(${sql.ref(column)}::text), n.needle) > 0
    `.execute(db);
    if (result.rows.length > 0) found[`${table}.${column}`] = result.rows.map((row) => row.needle);
  }
  return found;
}
