import type { TestApp } from './test-app.ts';

// What the database holds about a record, read from its tables in the test app's community: for tests that
// check what a push stored beyond what the API shows.

/** A record's custom field values, by field ID. */
export async function storedFieldValues(t: TestApp, entityType: 'contact' | 'organization', id: number): Promise<Record<number, unknown>> {
  const rows = await t.services.db
    .selectFrom('custom_field_values')
    .select(['custom_field_id', 'value'])
    .where('community_id', '=', t.communityId)
    .where('entity_type', '=', entityType)
    .where('entity_id', '=', id)
    .execute();
  return Object.fromEntries(rows.map((row) => [row.custom_field_id, row.value]));
}

/** The names of a record's tags, in order. */
export async function storedTagNames(t: TestApp, entityType: 'contact' | 'organization', id: number): Promise<string[]> {
  const rows = await t.services.db
    .selectFrom('tag_assignments as a')
    .innerJoin('tags as g', (join) => join.onRef('g.community_id', '=', 'a.community_id').onRef('g.id', '=', 'a.tag_id'))
    .select('g.name')
    .where('a.community_id', '=', t.communityId)
    .where('a.entity_type', '=', entityType)
    .where('a.entity_id', '=', id)
    .orderBy('g.name')
    .execute();
  return rows.map((row) => row.name);
}
