import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erasedExternalId } from '../../src/modules/identity/identity-values.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/** Migration 0009 gives profiles erased before it the hash that erasure gives now, computed the same way. */
describe.each(ENGINES)('hashing the external IDs of contacts erased earlier (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t.close());

  it("hashes exactly as erasedExternalId does, and only erased contacts' plain IDs", async () => {
    const db = t.services.db;
    const contact = async (anonymized: boolean) =>
      (
        await db
          .insertInto('contacts')
          .values({ community_id: t.communityId, name: 'X', anonymized_at: anonymized ? new Date() : null })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    const erased = await contact(true);
    const live = await contact(false);
    const profiles = [
      { id: 'u-4711', contact: erased },
      { id: 'Ünïcødé-ID', contact: erased },
      { id: erasedExternalId('already'), contact: erased },
      { id: 'u-live', contact: live },
    ];
    for (const profile of profiles) {
      await db
        .insertInto('source_profiles')
        .values({ community_id: t.communityId, source_id: t.sourceId, external_id: profile.id, contact_id: profile.contact, fields: '{}' })
        .execute();
    }
    const migration = await import('node:fs').then((fs) =>
      fs.readFileSync(new URL('../../src/db/migrations/0009_erase_plain_external_ids.sql', import.meta.url), 'utf8'),
    );
    await sql.raw(migration).execute(db);
    const ids = (await db.selectFrom('source_profiles').select('external_id').where('community_id', '=', t.communityId).execute())
      .map((row) => row.external_id)
      .sort();
    expect(ids).toEqual([erasedExternalId('u-4711'), erasedExternalId('Ünïcødé-ID'), erasedExternalId('already'), 'u-live'].sort());
  });
});
