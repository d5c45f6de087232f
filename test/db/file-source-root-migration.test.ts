import fs from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/**
 * Migration 0035: file sources made before it are held to HEARTH_FILE_SOURCE_ROOT unless the audit log shows
 * the CLI made them, and stored bad-line reasons that quoted a line keep only their verdict.
 */
describe.each(ENGINES)('migration 0035, file sources made before the root (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  }, 120_000);
  afterAll(() => t?.close());

  it('confines the file sources the CLI did not make; scrubs the quoted bytes from stored reasons', async () => {
    const db = t.services.db;
    const source = async (name: string, kind: 'api' | 'file', actor: string | null) => {
      const { id } = await db
        .insertInto('sources')
        .values({ community_id: t.communityId, name, kind, path: kind === 'file' ? '/srv/somewhere' : null })
        .returning('id')
        .executeTakeFirstOrThrow();
      if (actor) {
        await db
          .insertInto('audit_log')
          .values({ community_id: t.communityId, actor, operation: 'source.create', entity_ids: [`sig_${id}`] })
          .execute();
      }
      return id;
    };
    const byCli = await source('By the CLI', 'file', 'cli:ops@host');
    const byToken = await source('By a token', 'file', 'user:admin@example.org');
    const unknown = await source('Audit pruned', 'file', null);
    const api = await source('An API source', 'api', 'user:admin@example.org');

    const quoted = 'not JSON: Unexpected token \'r\', "root:x:0:0\\"q"... is not valid JSON';
    const kept = [
      { line: 2, reason: 'not a JSON object' },
      { line: 3, reason: 'not JSON (invalid at character 2)' },
    ];
    await db
      .insertInto('source_imports')
      .values({
        community_id: t.communityId,
        source_id: byCli,
        sha256: 'a'.repeat(64),
        file_name: 'passwd.jsonl',
        size: 10,
        modified_at: new Date(),
        started_at: new Date(),
        bad_lines: JSON.stringify([{ line: 1, reason: quoted }, ...kept]),
      })
      .execute();
    const result = (badLines: unknown) => ({ sourceId: byCli, files: [{ name: 'passwd.jsonl', badLines }] });
    const { id: jobId } = await db
      .insertInto('jobs')
      .values({
        community_id: t.communityId,
        kind: 'source.import',
        status: 'completed',
        result: JSON.stringify(result([{ line: 1, reason: quoted }, ...kept])),
      })
      .returning('id')
      .executeTakeFirstOrThrow();

    const migration = fs.readFileSync(new URL('../../src/db/migrations/0035_file_source_root.sql', import.meta.url), 'utf8');
    await sql.raw(migration).execute(db);

    const confined = await db
      .selectFrom('sources')
      .select(['id', 'confined_to_root'])
      .where('community_id', '=', t.communityId)
      .where('id', 'in', [byCli, byToken, unknown, api])
      .orderBy('id')
      .execute();
    expect(confined).toEqual([
      { id: byCli, confined_to_root: false },
      { id: byToken, confined_to_root: true },
      { id: unknown, confined_to_root: true },
      { id: api, confined_to_root: false },
    ]);
    const scrubbed = [{ line: 1, reason: 'not JSON' }, ...kept];
    const stored = await db
      .selectFrom('source_imports')
      .select('bad_lines')
      .where('community_id', '=', t.communityId)
      .where('source_id', '=', byCli)
      .executeTakeFirstOrThrow();
    expect(stored.bad_lines).toEqual(scrubbed);
    const job = await db.selectFrom('jobs').select('result').where('community_id', '=', t.communityId).where('id', '=', jobId).executeTakeFirstOrThrow();
    expect(job.result).toEqual(result(scrubbed));
  });
});
