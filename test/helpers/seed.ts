import type { Insertable } from 'kysely';
import type { DB } from '../../src/db/schema.ts';
import type { TestApp } from './test-app.ts';

// Custom field and lead score definitions have admin routes (POST /api/v2/admin/custom-fields and
// /api/v2/admin/lead-scores; docs/writing.md, docs/lead-scores.md), which custom-fields-admin.test.ts and
// lead-scores.test.ts test. Tests about reading, filtering and sorting make their definitions here instead,
// as rows of the table: any columns in one statement, without an admin token; and a lead score made here
// without `rules` is never computed, so its values are those the test writes. A test that wants a
// definition made as an admin makes it (checked, audited, a lead score computed) uses the factories instead
// (test/helpers/factories.ts: newCustomField, newLeadScore). The community is the test app's unless given.

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
export async function seedLeadScore(
  t: TestApp,
  score: Omit<Insertable<DB['lead_score_definitions']>, 'community_id'>,
  communityId = t.communityId,
): Promise<number> {
  const row = await t.services.db
    .insertInto('lead_score_definitions')
    .values({ ...score, community_id: communityId })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
