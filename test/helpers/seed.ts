import type { Insertable } from 'kysely';
import type { DB } from '../../src/db/schema.ts';
import type { TestApp } from './test-app.ts';

// Custom fields and lead scores have no way in through the API yet (issue #14), so the tests create their
// definitions here, in one place. Columns are the table's; the community is the test app's unless given.

/** A custom field definition: its ID. */
export async function seedCustomField(t: TestApp, field: Omit<Insertable<DB['custom_fields']>, 'community_id'>, communityId = t.communityId): Promise<number> {
  const row = await t.services.db
    .insertInto('custom_fields')
    .values({ ...field, community_id: communityId })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** A lead score definition: its ID. */
export async function seedLeadScore(t: TestApp, score: Omit<Insertable<DB['lead_score_definitions']>, 'community_id'>, communityId = t.communityId): Promise<number> {
  const row = await t.services.db
    .insertInto('lead_score_definitions')
    .values({ ...score, community_id: communityId })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
