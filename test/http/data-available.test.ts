import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import type { DB } from '../../src/db/schema.ts';
import { createWorker, type Worker } from '../../src/jobs/worker.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { cliActor, cliWriter } from '../../src/core/writer.ts';

/**
 * POST /api/v2/data-available (docs/writing.md, Notify new data; docs/behaviour.md, Errors): the call enqueues
 * one durable
 * `source.import` job per source (a second call answers the waiting or running one); the job imports a
 * file source's new JSONL files through the core pushes' service functions, bad lines reported, each file
 * once, resuming where a dead attempt stopped; then it re-derives organizations, locations and topics,
 * where missing, for what the source touched since its last run.
 */

interface ImportedFile {
  name: string;
  size: number;
  sha256: string;
  lines: number;
  resumed: boolean;
  counts: { users: number; activities: number; organizations: number; warnings: number; badLines: number };
  badLines: { line: number; reason: string }[];
}

interface ImportResult {
  sourceId: number;
  kind: string;
  since: string | null;
  lastImportAt: string;
  files?: ImportedFile[];
  skippedFiles?: number;
  augmented: { contacts: number; organizationsLinked: number; organizationsCreated: number; locationsSet: number; activitiesTopiced: number };
}

const jsonl = (...items: unknown[]) => `${items.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))).join('\n')}\n`;

describe.each(ENGINES)('data-available (%s)', (engine) => {
  let t: TestApp;
  let db: Kysely<DB>;
  let worker: Worker;
  const clock = new ManualClock('2026-04-01T09:00:00.000Z');
  const folders: string[] = [];
  let other: { communityId: number; sourceId: number; token: string };

  beforeAll(async () => {
    t = await createTestApp(engine, { clock });
    db = t.services.db;
    worker = createWorker({ db, clock, queue: t.services.jobs });
    const { communityId } = await t.services.communities.create('Other', cliActor());
    const source = await t.services.sources.create(cliWriter(communityId), { name: 'Other API' });
    other = { communityId, sourceId: source.id, token: await t.issueToken(['read', 'write', 'admin'], communityId) };
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
  }, 120_000);

  const notify = (body: unknown, token: string | null = t.token) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v2/data-available',
      headers: token ? { authorization: `Bearer ${token}` } : {},
      payload: body as object,
    });

  async function notified(sourceId: number, token = t.token) {
    const response = await notify({ sourceId }, token);
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { success: true; jobId: number; created: boolean };
  }

  const job = (id: number) => db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  /** Notifies, runs the worker until idle, and returns the completed job's result. */
  async function runImport(sourceId: number): Promise<ImportResult> {
    const { jobId } = await notified(sourceId);
    await worker.runUntilIdle();
    const row = await job(jobId);
    expect(row.status, row.error ?? '').toBe('completed');
    return row.result as unknown as ImportResult;
  }

  function folder(): string {
    const made = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-files-'));
    folders.push(made);
    return made;
  }

  let sourceCounter = 0;
  async function fileSource(dir = folder()) {
    const source = await t.services.sources.create(cliWriter(t.communityId), { name: `Files ${++sourceCounter}`, kind: 'file', path: dir });
    return { id: source.id, dir };
  }

  async function apiSource() {
    return (await t.services.sources.create(cliWriter(t.communityId), { name: `API ${++sourceCounter}` })).id;
  }

  async function push(kind: 'user' | 'activity', sourceId: number, body: Record<string, unknown>) {
    const response = await t.app.inject({
      method: 'POST',
      url: `/community/v1/source/${sourceId}/${kind}`,
      headers: { authorization: `Bearer ${t.token}` },
      payload: body,
    });
    expect(response.statusCode, response.body).toBe(202);
    return response.json() as { contactId: string; activityId?: string };
  }

  const key = (id: string) => Number(id.replace(/^[a-z]+_/, ''));

  const contact = (id: number) =>
    db.selectFrom('contacts').selectAll().where('community_id', '=', t.communityId).where('id', '=', id).executeTakeFirstOrThrow();

  const contactByEmail = (email: string) =>
    db.selectFrom('contacts').selectAll().where('community_id', '=', t.communityId).where('primary_email', '=', email).executeTakeFirst();

  const topicsOf = async (activityId: number) =>
    (
      await sql<{ name: string }>`
        select t.name from activity_topics at join topics t on t.community_id = at.community_id and t.id = at.topic_id
        where at.community_id = ${t.communityId} and at.activity_id = ${activityId} order by lower(t.name)`.execute(db)
    ).rows.map((row) => row.name);

  describe('the route', () => {
    it('200 {success, jobId, created}: a durable source.import job naming the source; a second call answers the same job', { timeout: 120_000 }, async () => {
      const sourceId = await apiSource();
      const first = await notified(sourceId);
      expect(first).toEqual({ success: true, jobId: expect.any(Number), created: true });
      expect(await job(first.jobId)).toMatchObject({
        community_id: t.communityId,
        kind: 'source.import',
        status: 'queued',
        payload: { sourceId },
      });

      const second = await notified(sourceId);
      expect(second).toEqual({ success: true, jobId: first.jobId, created: false });
      const jobs = await db
        .selectFrom('jobs')
        .select('id')
        .where('kind', '=', 'source.import')
        .where(sql<boolean>`payload @> ${JSON.stringify({ sourceId })}::jsonb`)
        .execute();
      expect(jobs).toHaveLength(1);

      // Another source's call is its own job.
      const another = await notified(await apiSource());
      expect(another.created).toBe(true);
      expect(another.jobId).not.toBe(first.jobId);

      expect(await worker.runUntilIdle()).toBe(2);
      expect((await job(first.jobId)).status).toBe('completed');
      // Once the job is done, a call makes a new one.
      const third = await notified(sourceId);
      expect(third).toMatchObject({ created: true });
      expect(third.jobId).not.toBe(first.jobId);
      await worker.runUntilIdle();
    });

    it('a call while the job runs answers the running job', { timeout: 120_000 }, async () => {
      const sourceId = await apiSource();
      const first = await notified(sourceId);
      await db
        .updateTable('jobs')
        .set({ status: 'running', locked_by: 'elsewhere', locked_until: new Date(clock.now().getTime() + 60_000) })
        .where('id', '=', first.jobId)
        .execute();
      expect(await notified(sourceId)).toEqual({ success: true, jobId: first.jobId, created: false });
      await db.updateTable('jobs').set({ status: 'queued', locked_by: null, locked_until: null }).where('id', '=', first.jobId).execute();
      await worker.runUntilIdle();
    });

    it('the body is strict: unknown fields, a missing or non-integer sourceId, no coercion: 400 {success:false, message}', { timeout: 120_000 }, async () => {
      const sourceId = await apiSource();
      const cases: [unknown, RegExp][] = [
        [{ sourceId, extra: 1 }, /unknown body field "extra"/],
        [{}, /"sourceId" is required/],
        [{ sourceId: String(sourceId) }, /"sourceId" must be integer/],
        [{ sourceId: 1.5 }, /"sourceId" must be integer/],
        [{ sourceId: 0 }, /"sourceId" must be >= 1/],
        [{ sourceId: 2 ** 60 }, /"sourceId" must be <= /],
        [[sourceId], /must be object/],
      ];
      for (const [body, message] of cases) {
        const response = await notify(body);
        expect(response.statusCode, JSON.stringify(body)).toBe(400);
        expect(response.json()).toEqual({ success: false, message: expect.stringMatching(message) });
      }
      const noBody = await t.app.inject({ method: 'POST', url: '/api/v2/data-available', headers: { authorization: `Bearer ${t.token}` } });
      expect(noBody.statusCode).toBe(400);
      expect(noBody.json()).toMatchObject({ success: false, message: expect.any(String) });
      const unknownQuery = await t.app.inject({
        method: 'POST',
        url: '/api/v2/data-available?force=1',
        headers: { authorization: `Bearer ${t.token}` },
        payload: { sourceId },
      });
      expect(unknownQuery.statusCode).toBe(400);
      expect(unknownQuery.json()).toEqual({ success: false, message: 'unknown query parameter "force"' });
      expect(
        await db
          .selectFrom('jobs')
          .select('id')
          .where(sql<boolean>`payload @> ${JSON.stringify({ sourceId })}::jsonb`)
          .execute(),
      ).toEqual([]);
    });

    it("404 {success:false, message} for an unknown source and for another community's source; no job is made", { timeout: 120_000 }, async () => {
      const before = await db.selectFrom('jobs').select('id').execute();
      for (const sourceId of [999_999, other.sourceId]) {
        const response = await notify({ sourceId });
        expect(response.statusCode).toBe(404);
        expect(response.json()).toEqual({ success: false, message: `no source ${sourceId} in this community` });
      }
      // The other community may notify about its own source.
      const theirs = await notified(other.sourceId, other.token);
      expect((await job(theirs.jobId)).community_id).toBe(other.communityId);
      // ...and not about ours.
      expect((await notify({ sourceId: t.sourceId }, other.token)).statusCode).toBe(404);
      expect((await db.selectFrom('jobs').select('id').execute()).length).toBe(before.length + 1);
      await worker.runUntilIdle();
    });

    it('scope sources:write (or write): another scope is 403 {status:"forbidden"}; no token is 403', { timeout: 120_000 }, async () => {
      const sourceId = await apiSource();
      const reader = await t.issueToken(['contacts:read', 'organizations:write']);
      const denied = await notify({ sourceId }, reader);
      expect(denied.statusCode).toBe(403);
      expect(denied.json()).toMatchObject({ status: 'forbidden' });
      expect((await notify({ sourceId }, null)).statusCode).toBe(403);
      expect((await notified(sourceId, await t.issueToken(['sources:write']))).created).toBe(true);
      expect((await notified(sourceId, await t.issueToken(['write']))).created).toBe(false);
      await worker.runUntilIdle();
    });
  });

  describe('file sources', () => {
    it('imports each line through its core push; bad lines are counted and listed with their numbers and reasons', { timeout: 120_000 }, async () => {
      const source = await fileSource();
      fs.writeFileSync(
        path.join(source.dir, '001-first.jsonl'),
        jsonl(
          { type: 'organization', domain: 'https://www.initech.com', tagIdsToAdd: [] },
          { type: 'user', id: 'u-1', fullName: 'Peter Gibbons', email: 'Peter@Initech.com', rawLocation: 'Austin, TX' },
          '',
          {
            type: 'activity',
            id: 'post-1',
            activityType: 'made_post_topic',
            user: { id: 'u-1', email: 'peter@initech.com' },
            content: { type: 'text', value: 'How do I configure the Kubernetes ingress controller?' },
            timestamp: '2026-03-30T10:00:00Z',
          },
          'this is not json',
          { type: 'meeting', id: 'x' },
          { type: 'user', fullName: 'No ID' },
          { type: 'activity', id: 'post-2', activityType: 'no_such_type', user: { id: 'u-1' } },
          { type: 'user', id: 'u-2', email: 'n/a', github: 'milton-w', favouriteStapler: 'red' },
          '[1, 2]',
          { type: 'user', id: 'u-3', destinationSourceId: source.id + 1000 },
        ),
      );
      // Hidden files (being written) and other extensions are not read.
      fs.writeFileSync(path.join(source.dir, '.002-partial.jsonl'), jsonl({ type: 'user', id: 'hidden' }));
      fs.writeFileSync(path.join(source.dir, 'notes.txt'), 'not an import\n');

      const result = await runImport(source.id);
      expect(result).toMatchObject({ sourceId: source.id, kind: 'file', since: null, skippedFiles: 0 });
      expect(result.files).toHaveLength(1);
      const [file] = result.files!;
      expect(file).toMatchObject({
        name: '001-first.jsonl',
        size: fs.statSync(path.join(source.dir, '001-first.jsonl')).size,
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        lines: 11,
        resumed: false,
        counts: { users: 2, activities: 1, organizations: 1, badLines: 6, warnings: 2 },
      });
      expect(file!.badLines).toEqual([
        { line: 5, reason: 'not JSON' },
        { line: 6, reason: '"type" must be one of "user", "activity", "organization"' },
        { line: 7, reason: 'body field "id" is required' },
        { line: 8, reason: expect.stringContaining('unknown activityType "no_such_type"') },
        { line: 10, reason: 'not a JSON object' },
        { line: 11, reason: `destinationSourceId ${source.id + 1000} in the body does not match source ${source.id} of the path` },
      ]);

      // What the lines made, as the pushes would have.
      // The activity line's user came last: its spelling of the address won.
      const peter = (await contactByEmail('peter@initech.com'))!;
      expect(peter).toMatchObject({
        full_name: 'Peter Gibbons',
        city: 'Austin',
        region: 'Texas',
        country: 'United States',
        company_website: 'https://initech.com',
      });
      const initech = await db
        .selectFrom('organizations')
        .selectAll()
        .where('community_id', '=', t.communityId)
        .where('primary_domain', '=', 'initech.com')
        .executeTakeFirstOrThrow();
      expect(initech).toMatchObject({ source_id: source.id, member_count: 1 });
      expect(peter.organization_id).toBe(initech.id);
      const activity = await db.selectFrom('activities').selectAll().where('community_id', '=', t.communityId).where('source_id', '=', source.id).execute();
      expect(activity).toEqual([expect.objectContaining({ external_id: 'post-1', contact_id: peter.id })]);
      expect(await topicsOf(activity[0]!.id)).not.toEqual([]);
      const profiles = await db
        .selectFrom('source_profiles')
        .select('external_id')
        .where('community_id', '=', t.communityId)
        .where('source_id', '=', source.id)
        .orderBy('external_id')
        .execute();
      expect(profiles.map((p) => p.external_id)).toEqual(['u-1', 'u-2']);

      const recorded = await sql<{ file_name: string; status: string; lines_done: number }>`
        select file_name, status, lines_done from source_imports where community_id = ${t.communityId} and source_id = ${source.id}`.execute(db);
      expect(recorded.rows).toEqual([{ file_name: '001-first.jsonl', status: 'imported', lines_done: 11 }]);
      const jobRow = await db.selectFrom('jobs').selectAll().where('kind', '=', 'source.import').orderBy('id', 'desc').executeTakeFirstOrThrow();
      expect(jobRow.progress).toMatchObject({ phase: 'augmenting' });
    });

    it('a file imported once is not imported again (nor a renamed copy); new and changed files are', { timeout: 120_000 }, async () => {
      const source = await fileSource();
      const first = jsonl({ type: 'user', id: 'r-1', email: 'first@repeat.example.org' });
      fs.writeFileSync(path.join(source.dir, 'a.jsonl'), first);
      expect((await runImport(source.id)).files).toEqual([expect.objectContaining({ name: 'a.jsonl', counts: expect.objectContaining({ users: 1 }) })]);

      // Erase what it made: were the file read again, the profile would come back.
      const made = (await contactByEmail('first@repeat.example.org'))!;
      await db.deleteFrom('source_profiles').where('community_id', '=', t.communityId).where('source_id', '=', source.id).execute();
      clock.advance(60_000);
      fs.copyFileSync(path.join(source.dir, 'a.jsonl'), path.join(source.dir, 'a-copy.jsonl'));
      const again = await runImport(source.id);
      expect(again).toMatchObject({ files: [], skippedFiles: 2 });
      expect(
        await db.selectFrom('source_profiles').select('external_id').where('community_id', '=', t.communityId).where('source_id', '=', source.id).execute(),
      ).toEqual([]);

      // A new file is imported; a changed one is imported again, whole.
      clock.advance(60_000);
      fs.writeFileSync(path.join(source.dir, 'b.jsonl'), jsonl({ type: 'user', id: 'r-2', email: 'second@repeat.example.org' }));
      fs.appendFileSync(path.join(source.dir, 'a.jsonl'), jsonl({ type: 'user', id: 'r-3', email: 'third@repeat.example.org' }));
      const third = await runImport(source.id);
      expect(third.skippedFiles).toBe(1);
      expect(third.files!.map((file) => [file.name, file.lines, file.counts.users])).toEqual([
        ['a.jsonl', 2, 2],
        ['b.jsonl', 1, 1],
      ]);
      const profiles = await db
        .selectFrom('source_profiles')
        .select(['external_id', 'contact_id'])
        .where('community_id', '=', t.communityId)
        .where('source_id', '=', source.id)
        .orderBy('external_id')
        .execute();
      expect(profiles.map((p) => p.external_id)).toEqual(['r-1', 'r-2', 'r-3']);
      // The repeated line found its contact again: no duplicate.
      expect(profiles[0]!.contact_id).toBe(made.id);
      const counted = await sql<{
        n: number;
      }>`select count(*)::int as n from contacts where community_id = ${t.communityId} and primary_email like '%@repeat.example.org'`.execute(db);
      expect(counted.rows[0]!.n).toBe(3);
    });

    it('resumes a file where a dead attempt stopped, with its counts and bad lines, without pushing the done lines again', { timeout: 120_000 }, async () => {
      const source = await fileSource();
      const content = jsonl(
        { type: 'user', id: 'c-1', email: 'one@resume.example.org' },
        'garbage',
        { type: 'user', id: 'c-3', email: 'three@resume.example.org' },
        { type: 'user', id: 'c-4', email: 'four@resume.example.org' },
      );
      const file = path.join(source.dir, 'resume.jsonl');
      fs.writeFileSync(file, content);
      const { createHash } = await import('node:crypto');
      const sha256 = createHash('sha256').update(content).digest('hex');
      // An attempt that died after saving its place at line 2 (as a checkpoint would have).
      await sql`
        insert into source_imports (community_id, source_id, sha256, file_name, size, modified_at, status, lines_done, counts, bad_lines, started_at)
        values (${t.communityId}, ${source.id}, ${sha256}, 'resume.jsonl', ${content.length}, ${clock.now()}, 'importing', 2,
          ${JSON.stringify({ users: 1, badLines: 1 })}::jsonb, ${JSON.stringify([{ line: 2, reason: 'not JSON: earlier' }])}::jsonb, ${clock.now()})`.execute(
        db,
      );

      const result = await runImport(source.id);
      expect(result.files).toEqual([
        expect.objectContaining({
          name: 'resume.jsonl',
          lines: 4,
          resumed: true,
          counts: { users: 3, activities: 0, organizations: 0, warnings: 0, badLines: 1 },
          badLines: [{ line: 2, reason: 'not JSON: earlier' }],
        }),
      ]);
      // Line 1 was done before the crash: it was not pushed again.
      expect(await contactByEmail('one@resume.example.org')).toBeUndefined();
      expect(await contactByEmail('three@resume.example.org')).toBeDefined();
      expect(await contactByEmail('four@resume.example.org')).toBeDefined();
      const recorded = await sql<{ status: string; lines_done: number }>`
        select status, lines_done from source_imports where community_id = ${t.communityId} and source_id = ${source.id}`.execute(db);
      expect(recorded.rows).toEqual([{ status: 'imported', lines_done: 4 }]);
    });

    it(
      'a worker stopping mid-file saves its place and gives the job back; the next run continues there, pushing no line twice',
      { timeout: 120_000 },
      async () => {
        const source = await fileSource();
        const total = 3000;
        const users = Array.from({ length: total }, (_, n) => ({ type: 'user', id: `s-${n + 1}`, email: `user${n + 1}@stop.example.org` }));
        fs.writeFileSync(path.join(source.dir, 'big.jsonl'), jsonl(...users));
        const { jobId } = await notified(source.id);
        const linesDone = async () =>
          (
            await sql<{ lines_done: number }>`select lines_done from source_imports where community_id = ${t.communityId} and source_id = ${source.id}`.execute(
              db,
            )
          ).rows[0]?.lines_done ?? 0;

        const stopping = createWorker({ db, clock, queue: t.services.jobs, pollIntervalMs: 10 });
        stopping.start();
        const deadline = Date.now() + 60_000;
        // The job yields to the event loop between lines, so this loop's timers run while it imports.
        while ((await linesDone()) < 100 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
        await stopping.stop();
        const stoppedAt = await linesDone();
        expect(stoppedAt).toBeGreaterThanOrEqual(100);
        expect(stoppedAt).toBeLessThan(total);
        expect(stoppedAt % 100).toBe(0);
        // Given back without counting the attempt; its progress says where it was.
        expect(await job(jobId)).toMatchObject({
          status: 'queued',
          attempts: 0,
          progress: expect.objectContaining({ phase: 'importing', file: 'big.jsonl', lines: stoppedAt }),
        });

        // Lines after the saved place are pushed again by the next run; any pushed twice would be a second profile update, never a second contact.
        const before = await db
          .selectFrom('source_profiles')
          .select(['external_id', 'updated_at'])
          .where('community_id', '=', t.communityId)
          .where('source_id', '=', source.id)
          .execute();
        clock.advance(60_000);
        await worker.runUntilIdle();
        const done = await job(jobId);
        expect(done.status).toBe('completed');
        expect((done.result as unknown as ImportResult).files).toEqual([
          expect.objectContaining({ name: 'big.jsonl', lines: total, resumed: true, counts: expect.objectContaining({ users: total, badLines: 0 }) }),
        ]);
        const after = await db
          .selectFrom('source_profiles')
          .select(['external_id', 'updated_at'])
          .where('community_id', '=', t.communityId)
          .where('source_id', '=', source.id)
          .execute();
        expect(after).toHaveLength(total);
        // The lines before the saved place were not pushed again.
        const untouched = before.filter((row) => Number(row.external_id.slice(2)) <= stoppedAt);
        expect(untouched).toHaveLength(stoppedAt);
        const afterById = new Map(after.map((row) => [row.external_id, row.updated_at.getTime()]));
        for (const row of untouched) expect(afterById.get(row.external_id)).toBe(row.updated_at.getTime());
        const contacts = await sql<{
          n: number;
        }>`select count(*)::int as n from contacts where community_id = ${t.communityId} and primary_email like '%@stop.example.org'`.execute(db);
        expect(contacts.rows[0]!.n).toBe(total);
      },
    );

    it('a line that is not JSON is reported by its number and what is wrong, never by its bytes', { timeout: 120_000 }, async () => {
      const source = await fileSource();
      fs.writeFileSync(
        path.join(source.dir, 'passwd.jsonl'),
        jsonl(
          'root:x:0:0:root:/root:/bin/bash',
          '{secret-token: 1}',
          '{"type":"user","id":"p-1"} password=hunter2',
          '{"type": "user", "id": "p-2", "halfway":',
        ),
      );
      const [file] = (await runImport(source.id)).files!;
      expect(file!.badLines).toEqual([
        { line: 1, reason: 'not JSON' },
        { line: 2, reason: 'not JSON (invalid at character 2)' },
        { line: 3, reason: 'not JSON (invalid at character 28)' },
        { line: 4, reason: 'not JSON (the line ends inside a value)' },
      ]);
      const stored = await sql<{
        bad_lines: unknown;
      }>`select bad_lines from source_imports where community_id = ${t.communityId} and source_id = ${source.id}`.execute(db);
      for (const text of [JSON.stringify(file), JSON.stringify(stored.rows)]) {
        for (const secret of ['root', 'bin/bash', 'secret', 'hunter2', 'half']) expect(text).not.toContain(secret);
      }
    });

    it('a folder that cannot be read fails the attempt, naming it; a call brings the waiting retry forward', { timeout: 120_000 }, async () => {
      const dir = folder();
      const source = await fileSource(dir);
      fs.rmSync(dir, { recursive: true });
      const { jobId } = await notified(source.id);
      await worker.runUntilIdle();
      const failed = await job(jobId);
      expect(failed).toMatchObject({ status: 'queued', attempts: 1, error: expect.stringContaining(`cannot read the folder "${dir}"`) });
      expect(failed.run_at.getTime()).toBeGreaterThan(clock.now().getTime());

      fs.mkdirSync(dir);
      expect(await notified(source.id)).toEqual({ success: true, jobId, created: false });
      expect((await job(jobId)).run_at).toEqual(clock.now());
      await worker.runUntilIdle();
      expect(await job(jobId)).toMatchObject({ status: 'completed', attempts: 2, result: expect.objectContaining({ files: [], skippedFiles: 0 }) });
    });
  });

  describe('augmentation', () => {
    it(
      're-derives, where missing, organizations, locations and topics of what the source touched; then sets last_import_at',
      { timeout: 120_000 },
      async () => {
        const sourceId = await apiSource();
        const otherSourceId = await apiSource();
        const peter = key((await push('user', sourceId, { id: 'a-1', email: 'peter@augment-initech.com', rawLocation: 'Austin, TX' })).contactId);
        const samir = key(
          (await push('user', sourceId, { id: 'a-2', email: 'samir@gmail.com', city: 'Lyon', country: 'FR', companyName: 'Globex' })).contactId,
        );
        const posted = await push('activity', sourceId, {
          id: 'aug-post',
          activityType: 'made_post_topic',
          user: { id: 'a-1' },
          activityTitle: { type: 'text', value: 'Ingress' },
          content: { type: 'markdown', value: 'How do I configure the **Kubernetes ingress controller** for GraphQL subscriptions?' },
        });
        const activityId = key(posted.activityId!);
        const topics = await topicsOf(activityId);
        expect(topics).not.toEqual([]);
        // Someone another source touched: not this source's to re-derive.
        const bystander = key((await push('user', otherSourceId, { id: 'b-1', email: 'bob@augment-bystander.com' })).contactId);
        expect((await contact(samir)).organization_id).toBeNull();

        // Take away what the pushes derived, as for data stored before these derivations existed.
        await db
          .updateTable('contacts')
          .set({ organization_id: null, company_website: null })
          .where('community_id', '=', t.communityId)
          .where('id', 'in', [peter, bystander])
          .execute();
        await db
          .updateTable('contacts')
          .set({ city: null, region: null, country: null, country_code: null, world_region: null })
          .where('community_id', '=', t.communityId)
          .where('id', 'in', [peter, samir])
          .execute();
        await db.deleteFrom('activity_topics').where('community_id', '=', t.communityId).where('activity_id', '=', activityId).execute();
        const initech = (
          await db
            .selectFrom('organizations')
            .select(['id'])
            .where('community_id', '=', t.communityId)
            .where('primary_domain', '=', 'augment-initech.com')
            .executeTakeFirstOrThrow()
        ).id;
        await db.updateTable('organizations').set({ member_count: 0 }).where('community_id', '=', t.communityId).where('id', '=', initech).execute();
        const lyonBefore = await lyonMembers();
        // The one organization named Globex now exists: Samir's company name links to it.
        const globex = await t.app.inject({
          method: 'POST',
          url: `/community/v1/source/${sourceId}/organization`,
          headers: { authorization: `Bearer ${t.token}` },
          payload: { domain: 'globex.com' },
        });
        expect(globex.statusCode, globex.body).toBe(200);

        clock.advance(60_000);
        const result = await runImport(sourceId);
        expect(result).toMatchObject({
          sourceId,
          kind: 'api',
          since: null,
          lastImportAt: clock.now().toISOString(),
          augmented: { contacts: 2, organizationsLinked: 2, organizationsCreated: 0, locationsSet: 2, activitiesTopiced: 1 },
        });
        expect(result.files).toBeUndefined();
        expect(await contact(peter)).toMatchObject({
          organization_id: initech,
          company_website: 'https://augment-initech.com',
          city: 'Austin',
          region: 'Texas',
          country: 'United States',
          country_code: 'US',
          world_region: 'North America',
        });
        const globexId = key((globex.json() as { organizationId: string }).organizationId);
        expect(await contact(samir)).toMatchObject({
          organization_id: globexId,
          company_name: 'Globex',
          company_website: 'https://globex.com',
          city: 'Lyon',
          country: 'France',
        });
        expect((await contact(bystander)).organization_id).toBeNull();
        expect(await topicsOf(activityId)).toEqual(topics);
        const counts = await db
          .selectFrom('organizations')
          .select(['id', 'member_count'])
          .where('community_id', '=', t.communityId)
          .where('id', 'in', [initech, globexId])
          .orderBy('id')
          .execute();
        expect(counts.map((row) => row.member_count)).toEqual([1, 1]);
        // Its location rows gain it (the test took the columns away without the counts, so it counts twice now).
        expect(await lyonMembers()).toBe(lyonBefore + 1);
        const source = await db
          .selectFrom('sources')
          .select('last_import_at')
          .where('community_id', '=', t.communityId)
          .where('id', '=', sourceId)
          .executeTakeFirstOrThrow();
        expect(source.last_import_at).toEqual(clock.now());

        // The next run sees only what was touched since: nothing, then one new push.
        clock.advance(60_000);
        const idle = await runImport(sourceId);
        expect(idle).toMatchObject({ since: result.lastImportAt, augmented: { contacts: 0, organizationsLinked: 0, locationsSet: 0, activitiesTopiced: 0 } });
        clock.advance(60_000);
        await push('user', sourceId, { id: 'a-3', email: 'new@augment-initech.com' });
        expect((await runImport(sourceId)).augmented).toMatchObject({ contacts: 1, organizationsLinked: 0 });
      },
    );

    it('a domain no organization has yet makes one, named after the company; anonymized contacts are left alone', { timeout: 120_000 }, async () => {
      const sourceId = await apiSource();
      const ann = key((await push('user', sourceId, { id: 'n-1', email: 'ann@newcorp-augment.io', companyName: 'NewCorp Ltd' })).contactId);
      const gone = key((await push('user', sourceId, { id: 'n-2', email: 'gone@gonecorp-augment.io' })).contactId);
      await db
        .updateTable('contacts')
        .set({ organization_id: null, company_website: null, company_name: null })
        .where('community_id', '=', t.communityId)
        .where('id', 'in', [ann, gone])
        .execute();
      await db.updateTable('contacts').set({ anonymized_at: clock.now() }).where('community_id', '=', t.communityId).where('id', '=', gone).execute();
      await db
        .deleteFrom('organizations')
        .where('community_id', '=', t.communityId)
        .where('primary_domain', 'in', ['newcorp-augment.io', 'gonecorp-augment.io'])
        .execute();

      clock.advance(60_000);
      const result = await runImport(sourceId);
      expect(result.augmented).toMatchObject({ contacts: 2, organizationsLinked: 1, organizationsCreated: 1 });
      const made = await db
        .selectFrom('organizations')
        .selectAll()
        .where('community_id', '=', t.communityId)
        .where('primary_domain', 'like', '%-augment.io')
        .execute();
      expect(made).toEqual([expect.objectContaining({ name: 'NewCorp Ltd', primary_domain: 'newcorp-augment.io', source_id: sourceId, member_count: 1 })]);
      expect(
        await db
          .selectFrom('organization_domains')
          .select('organization_id')
          .where('community_id', '=', t.communityId)
          .where('domain', '=', 'newcorp-augment.io')
          .execute(),
      ).toEqual([{ organization_id: made[0]!.id }]);
      expect(await contact(ann)).toMatchObject({ organization_id: made[0]!.id, company_name: 'NewCorp Ltd' });
      expect((await contact(gone)).organization_id).toBeNull();
    });

    it("isolation: another community's job touches only its own contacts", { timeout: 120_000 }, async () => {
      const theirs = await t.app.inject({
        method: 'POST',
        url: `/community/v1/source/${other.sourceId}/user`,
        headers: { authorization: `Bearer ${other.token}` },
        payload: { id: 'o-1', email: 'someone@isolated-augment.com' },
      });
      expect(theirs.statusCode).toBe(202);
      const ours = key((await push('user', t.sourceId, { id: 'o-1', email: 'someone@isolated-augment.com' })).contactId);
      await db.updateTable('contacts').set({ organization_id: null }).where('community_id', '=', t.communityId).where('id', '=', ours).execute();
      clock.advance(60_000);
      const { jobId } = await notified(other.sourceId, other.token);
      await worker.runUntilIdle();
      expect((await job(jobId)).status).toBe('completed');
      expect((await contact(ours)).organization_id).toBeNull();
    });
  });

  async function lyonMembers(): Promise<number> {
    const row = await db
      .selectFrom('locations')
      .select('member_count')
      .where('community_id', '=', t.communityId)
      .where('type', '=', 'city')
      .where('city', '=', 'Lyon')
      .where('country', '=', 'France')
      .executeTakeFirst();
    return row?.member_count ?? 0;
  }
});
