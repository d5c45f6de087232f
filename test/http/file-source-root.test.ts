import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DB } from '../../src/db/schema.ts';
import { createWorker, type Worker } from '../../src/jobs/worker.ts';
import { cliActor, cliWriter } from '../../src/core/writer.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/**
 * A folder is the operator's to give. Through the API a file source may name only a folder under
 * HEARTH_FILE_SOURCE_ROOT, links resolved, checked again when it is imported; a refused path gets one
 * answer whether or not it exists; without the setting only the CLI makes file sources.
 */

const person = (id: string, email: string) => `${JSON.stringify({ type: 'user', id, email })}\n`;

function refusal(given: string) {
  return {
    success: false,
    error: {
      code: 'invalid_parameters',
      message: `path "${given}" is not a folder under HEARTH_FILE_SOURCE_ROOT, the folder the operator set for file sources made through the API`,
    },
  };
}

describe.each(ENGINES)('file sources and HEARTH_FILE_SOURCE_ROOT (%s)', (engine) => {
  let t: TestApp;
  let unset: TestApp;
  let db: Kysely<DB>;
  let worker: Worker;
  let scratch: string;
  /** The operator's root; `exports` and `more` are folders in it, `escape` a link to a folder outside it. */
  let root: string;
  /** A folder outside the root holding someone's people, as another community's exports might. */
  let outside: string;
  let counter = 0;

  beforeAll(async () => {
    scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-root-')));
    root = path.join(scratch, 'root');
    outside = path.join(scratch, 'elsewhere');
    for (const dir of [root, outside, path.join(root, 'exports'), path.join(root, 'more')]) fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(outside, 'people.jsonl'), person('x-1', 'secret@elsewhere.example.org'));
    fs.writeFileSync(path.join(root, 'notes.txt'), 'a file, not a folder\n');
    fs.symlinkSync(outside, path.join(root, 'escape'));
    t = await createTestApp(engine, { fileSourceRoot: root });
    unset = await createTestApp(engine);
    db = t.services.db;
    worker = createWorker({ db, clock: t.services.clock, queue: t.services.jobs });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await unset?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }, 120_000);

  const create = (app: TestApp, body: object) => app.send('POST', '/api/v2/admin/sources', { name: `Files ${++counter}`, kind: 'file', ...body });
  const sourcesOf = async (app: TestApp) => (await app.services.sources.list(app.communityId)).map((source) => source.path);
  const contactByEmail = (email: string) =>
    db.selectFrom('contacts').select('id').where('community_id', '=', t.communityId).where('primary_email', '=', email).executeTakeFirst();
  const job = (id: number) => db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const notify = (sourceId: number) => t.send('POST', '/api/v2/data-available', { sourceId });

  it('without the setting, the API makes no file source, naming the setting; the CLI still may, from any folder', async () => {
    const before = await sourcesOf(unset);
    for (const given of [outside, '/no/such/folder']) {
      const response = await create(unset, { path: given });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({
        success: false,
        error: {
          code: 'invalid_parameters',
          message:
            'file sources are made with the CLI (hearth source create --kind file), unless the operator sets HEARTH_FILE_SOURCE_ROOT, the folder under which the API may name them',
        },
      });
    }
    expect(await sourcesOf(unset)).toEqual(before);
    // An API source is made as before.
    expect((await unset.send('POST', '/api/v2/admin/sources', { name: 'Plain' })).statusCode).toBe(201);
    const operators = await unset.services.sources.create(cliWriter(unset.communityId), { name: 'Operator files', kind: 'file', path: outside });
    expect(operators).toMatchObject({ kind: 'file', path: outside });
  });

  it('a folder under the root is made, given absolute or relative to the root; its path is stored under the root', async () => {
    const absolute = await create(t, { path: path.join(root, 'exports') });
    expect(absolute.statusCode, absolute.body).toBe(201);
    expect(absolute.json().data).toMatchObject({ kind: 'file', path: path.join(root, 'exports') });
    const relative = await create(t, { path: 'more' });
    expect(relative.statusCode, relative.body).toBe(201);
    expect(relative.json().data).toMatchObject({ path: path.join(root, 'more') });
    const itself = await create(t, { path: root });
    expect(itself.statusCode, itself.body).toBe(201);
  });

  it('every path outside the root, or not a folder in it, gets the same 400 naming the setting, whether it exists or not', async () => {
    const before = await sourcesOf(t);
    const refused = [
      outside, // exists, outside
      path.join(scratch, 'no-such-folder'), // does not exist, outside
      '/etc',
      '/no/such/folder',
      '..', // relative, out of the root
      path.join(root, '..', 'elsewhere'),
      path.join(root, 'exports', '..', '..', 'elsewhere'),
      'escape', // a link under the root that leads out of it
      path.join(root, 'escape'),
      path.join(root, 'escape', '..', 'escape'),
      'notes.txt', // a file
      'missing', // nothing
    ];
    for (const given of refused) {
      const response = await create(t, { path: given });
      expect(response.statusCode, given).toBe(400);
      expect(response.json(), given).toEqual(refusal(given));
    }
    expect(await sourcesOf(t)).toEqual(before);
    const audit = await db
      .selectFrom('audit_log')
      .select('detail')
      .where('community_id', '=', t.communityId)
      .where('operation', '=', 'source.create')
      .execute();
    expect(JSON.stringify(audit)).not.toContain('elsewhere');
  });

  it('a source made through the API imports from its folder; once a link makes it lead out of the root, it is refused and its job reads nothing', async () => {
    const folder = path.join(root, `swapped-${counter}`);
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, 'a.jsonl'), person('in-1', 'inside@root.example.org'));
    const made = await create(t, { path: folder });
    expect(made.statusCode, made.body).toBe(201);
    const sourceId = made.json().data.sourceId as number;

    const first = await notify(sourceId);
    expect(first.statusCode, first.body).toBe(200);
    await worker.runUntilIdle();
    expect(await job(first.json().jobId)).toMatchObject({
      status: 'completed',
      result: expect.objectContaining({ files: [expect.objectContaining({ name: 'a.jsonl' })] }),
    });
    expect(await contactByEmail('inside@root.example.org')).toBeDefined();

    // Queued while the folder was allowed; the folder is then swapped for a link to the outside.
    const queued = await notify(sourceId);
    expect(queued.statusCode, queued.body).toBe(200);
    fs.rmSync(folder, { recursive: true });
    fs.symlinkSync(outside, folder);
    await worker.runUntilIdle();
    expect(await job(queued.json().jobId)).toMatchObject({
      status: 'completed',
      result: {
        sourceId,
        skipped: 'the source was made through the API and its folder is not a folder under HEARTH_FILE_SOURCE_ROOT (as the operator set it now)',
      },
    });
    expect(await contactByEmail('secret@elsewhere.example.org')).toBeUndefined();

    const refused = await notify(sourceId);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({
      success: false,
      message: `source ${sourceId} was made through the API and its folder is not a folder under HEARTH_FILE_SOURCE_ROOT (as the operator set it now): it is not imported until it is`,
    });
  });

  it("a source made through the API whose stored folder is not under the root as set now is not imported; an operator's source is", async () => {
    // As a source made under another root, or made through the API before the rule, would be stored.
    const insert = (name: string, confined: boolean) =>
      db
        .insertInto('sources')
        .values({ community_id: t.communityId, name, kind: 'file', path: outside, confined_to_root: confined })
        .returning('id')
        .executeTakeFirstOrThrow();
    const apiMade = (await insert('Old API files', true)).id;
    const refused = await notify(apiMade);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toMatch(/HEARTH_FILE_SOURCE_ROOT/);
    expect(
      await db
        .selectFrom('jobs')
        .select('id')
        .where(sql<boolean>`payload @> ${JSON.stringify({ sourceId: apiMade })}::jsonb`)
        .execute(),
    ).toEqual([]);
    expect(await contactByEmail('secret@elsewhere.example.org')).toBeUndefined();

    const operators = (await t.services.sources.create(cliWriter(t.communityId), { name: 'Operator elsewhere', kind: 'file', path: outside })).id;
    const accepted = await notify(operators);
    expect(accepted.statusCode, accepted.body).toBe(200);
    await worker.runUntilIdle();
    expect(await contactByEmail('secret@elsewhere.example.org')).toBeDefined();
  });

  it('a link to a file outside, placed in an allowed folder, is not read', async () => {
    const folder = path.join(root, `links-${counter}`);
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(outside, 'more-people.jsonl'), person('x-2', 'linked@elsewhere.example.org'));
    fs.symlinkSync(path.join(outside, 'more-people.jsonl'), path.join(folder, 'linked.jsonl'));
    const made = await create(t, { path: folder });
    const response = await notify(made.json().data.sourceId as number);
    await worker.runUntilIdle();
    expect(await job(response.json().jobId)).toMatchObject({ status: 'completed', result: expect.objectContaining({ files: [], skippedFiles: 0 }) });
    expect(await contactByEmail('linked@elsewhere.example.org')).toBeUndefined();
  });

  it("another community's admin cannot point a source at this community's folder outside the root", async () => {
    const { communityId } = await t.services.communities.create(`Other ${counter}`, cliActor());
    const theirAdmin = await t.issueToken(['read', 'write', 'admin'], communityId);
    const response = await t.send('POST', '/api/v2/admin/sources', { name: 'Borrowed', kind: 'file', path: outside }, theirAdmin);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(refusal(outside));
  });
});
