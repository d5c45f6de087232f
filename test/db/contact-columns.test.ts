import fs from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTACT_COLUMN_ROLES, WATCHED_COLUMNS, WRITTEN_COLUMNS } from '../../src/modules/contacts/contact-columns.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/test-database.ts';

/**
 * The contacts table's columns are declared once, in TypeScript (contact-columns.ts); SQL that cannot import
 * the declaration is compared with it here, against the migrated database.
 */
describe.each(ENGINES)('the declaration of the contact columns (%s)', (engine) => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await createTestDatabase(engine);
  });
  afterAll(() => test.drop());

  it('names every column of the table, and no other', async () => {
    const { rows } = await sql<{ name: string }>`
      select column_name as name from information_schema.columns where table_schema = current_schema() and table_name = 'contacts'`.execute(test.database.db);
    expect(rows.map((row) => row.name).sort()).toEqual(Object.keys(CONTACT_COLUMN_ROLES).sort());
  });

  it('casts what ingestion writes to each column to the column type', async () => {
    const { rows } = await sql<{ name: string; type: string }>`
      select column_name as name, data_type as type from information_schema.columns
      where table_schema = current_schema() and table_name = 'contacts'`.execute(test.database.db);
    const types = new Map(rows.map((row) => [row.name, row.type]));
    for (const [column, cast] of WRITTEN_COLUMNS) expect([column, types.get(column)]).toEqual([column, cast]);
  });

  // The trigger's condition compares old and new rows in one row comparison (nothing read from elsewhere,
  // no call for a row whose watched fields are as they were): it is SQL, so this is where it is held to the
  // declaration.
  it('makes contact.updated events for the watched columns, as the trigger lists them', async () => {
    const { rows } = await sql<{ text: string }>`
      select pg_get_triggerdef(oid) as text from pg_trigger where tgname = 'webhook_event_contact_updated'`.execute(test.database.db);
    // PostgreSQL keeps the row comparison as one comparison per column.
    const pairs = [...rows[0]!.text.matchAll(/new\.(\w+) IS DISTINCT FROM old\.(\w+)/g)].map((match) => [match[1], match[2]]);
    for (const [changed, was] of pairs) expect(changed).toBe(was);
    expect(pairs.map(([column]) => column).sort()).toEqual([...WATCHED_COLUMNS].sort());
  });

  // Identity merges contacts, and contacts depend on identity, so its merge cannot read the declaration: it
  // must still carry every field a push writes over from the merged contact.
  it('has merges carry every column ingestion writes', () => {
    const source = fs.readFileSync(new URL('../../src/modules/identity/contact-merge.repository.ts', import.meta.url), 'utf8');
    const merge = source.slice(source.indexOf('export async function mergeContacts'), source.indexOf('export async function mergesInto'));
    const update = merge.slice(merge.indexOf('update contacts s set'), merge.indexOf('from contacts m'));
    for (const column of WRITTEN_COLUMNS.keys()) expect([column, new RegExp(`\\b${column} = `).test(update)]).toEqual([column, true]);
  });

  // A member merged with a console user's staff contact, either way round, gives a member (docs/console.md).
  // test/http/staff-contacts.test.ts merges one; this holds the statement to it, as above for the other columns.
  it('has merges give a member unless both contacts are staff', () => {
    const source = fs.readFileSync(new URL('../../src/modules/identity/contact-merge.repository.ts', import.meta.url), 'utf8');
    const merge = source.slice(source.indexOf('export async function mergeContacts'), source.indexOf('export async function mergesInto'));
    expect(merge.slice(merge.indexOf('update contacts s set'), merge.indexOf('from contacts m'))).toMatch(/\bstaff = s\.staff and m\.staff\b/);
  });
});
