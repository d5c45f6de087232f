import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll } from 'vitest';
import type { Engine } from '../../../src/db/database.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-database.ts';
import type { DB } from '../../../src/db/schema.ts';
import type { CustomFieldFilterDefinition } from '../../../src/modules/custom-fields/custom-field.filters.ts';
import { compileLightFilter, ENTITY_TABLES, type DynamicFields, type FilterEntity } from '../../../src/modules/filter-fields/entity-filters.ts';

/**
 * The rows that the lightFilter database tests run against, on either engine. Community A (the one
 * filtered) and community B (whose rows must never match) get explicit IDs, chosen so that IDs of
 * different entities collide (contact 1 and organization 1, ...): a filter that forgot an entity type or a
 * community would match rows it must not. Times are fixed around NOW, with rows exactly on the window
 * boundaries and a microsecond inside them.
 */

export const NOW = new Date('2024-06-15T12:00:00.000Z');
export const DAY = 86_400_000;
export const A = 1;
export const B = 2;

/** The instant `days` before NOW, as ISO text; `plusMicro` adds one microsecond. */
export function before(days: number, plusMicro = false): string {
  const iso = new Date(NOW.getTime() - days * DAY).toISOString();
  return plusMicro ? iso.replace(/\.000Z$/, '.000001Z') : iso;
}

// Contacts of community A, and their IDs.
export const ada = 1;
export const grace = 2;
export const linus = 3;
export const nobody = 4;
export const eve = 5;
export const ALL_CONTACTS = [ada, grace, linus, nobody, eve];
// Community B.
export const bAda = 101;

const SEED: string[] = [
  `insert into communities (id, name) values (${A}, 'A'), (${B}, 'B')`,
  `insert into sources (community_id, id, name) values (${A}, 1, 'github'), (${A}, 2, 'discord'), (${B}, 101, 'github')`,
  `insert into sub_sources (community_id, id, source_id, name) values (${A}, 1, 1, '#general'), (${A}, 2, 2, 'repo-x'), (${B}, 101, 101, '#general')`,
  `insert into organizations (community_id, id, name, primary_domain, member_count, employees, country, city) values
    (${A}, 1, 'Initech', 'initech.com', 2, 50, 'Germany', 'Berlin'),
    (${A}, 2, 'Globex', 'globex.com', 1, null, 'United States', null),
    (${B}, 101, 'Initech', 'initech.com', 2, 50, 'Germany', 'Berlin')`,
  `insert into contacts (community_id, id, name, full_name, primary_email, title, company_name, organization_id, country, city,
      activity_count_all, first_activity_at, latest_activity_at) values
    (${A}, ${ada}, 'Ada Lovelace', 'Ada Lovelace', 'ada@example.com', 'Engineer', 'Initech', 1, 'United Kingdom', 'London', 4,
      '2020-01-01T00:00:00Z', '${NOW.toISOString()}'),
    (${A}, ${grace}, 'Grace Hopper', 'Grace Hopper', 'grace@navy.mil', 'Rear Admiral', 'Globex', 2, 'United States', 'Arlington', 2,
      '2024-06-01T00:00:00Z', '${before(1)}'),
    (${A}, ${linus}, 'Linus Torvalds', 'Linus Torvalds', 'linus@kernel.org', 'Engineer', 'Linux Foundation', null, 'Finland', 'Helsinki', 1,
      '2024-05-31T23:59:59.999999Z', '${before(1, true)}'),
    (${A}, ${nobody}, 'Unknown', null, null, null, 'NULL', null, null, null, 0, null, null),
    (${A}, ${eve}, 'Eve Example', 'Eve Example', 'EVE@Example.com', 'engineering manager (100%_)', 'initech', 1, 'United Kingdom', 'Manchester', 0,
      null, null),
    (${B}, ${bAda}, 'Ada Lovelace', 'Ada Lovelace', 'ada@example.com', 'Engineer', 'Initech', 101, 'United Kingdom', 'London', 4,
      '2020-01-01T00:00:00Z', '${NOW.toISOString()}')`,
  `insert into contact_identities (community_id, type, value, display_value, contact_id) values
    (${A}, 'email', 'ada@example.com', 'ada@example.com', ${ada}), (${A}, 'github', 'ada', 'ada', ${ada}),
    (${A}, 'email', 'grace@navy.mil', 'grace@navy.mil', ${grace}), (${A}, 'twitter', 'grace', 'grace', ${grace}),
    (${A}, 'email', 'linus@kernel.org', 'linus@kernel.org', ${linus}), (${A}, 'github', 'torvalds', 'torvalds', ${linus}),
    (${A}, 'linkedin', 'linus', 'linus', ${linus}), (${A}, 'discord', 'eve#1', 'eve#1', ${eve}),
    (${B}, 'discord', 'ada#1', 'ada#1', ${bAda})`,
  `insert into source_profiles (community_id, source_id, external_id, contact_id) values
    (${A}, 1, 'u-ada', ${ada}), (${A}, 2, 'u-grace', ${grace}), (${B}, 101, 'u-ada', ${bAda})`,
  `insert into activities (community_id, id, source_id, activity_type, external_id, contact_id, activity_time, title, content, url,
      sentiment, is_user_initiated, sub_source_id) values
    (${A}, 1, 1, 'commented', 'x1', ${ada}, '${NOW.toISOString()}', 'Ingress help', 'Great Question about Kubernetes',
      'https://forum.example.com/t/1', 'positive', true, 1),
    (${A}, 2, 1, 'commented', 'x2', ${ada}, '${before(7, true)}', null, 'thanks', null, 'neutral', true, null),
    (${A}, 3, 1, 'reacted', 'x3', ${ada}, '${before(7)}', null, null, null, null, false, 1),
    (${A}, 4, 2, 'posted', 'x4', ${ada}, '${new Date(NOW.getTime() + 1000).toISOString()}', null, 'kubernetes is hard', null, 'negative', true, 2),
    (${A}, 5, 2, 'posted', 'y1', ${grace}, '${before(28)}', null, null, null, 'negative', false, 2),
    (${A}, 6, 2, 'posted', 'y2', ${grace}, '${before(365, true)}', null, 'Hello world', null, 'positive', true, null),
    (${A}, 7, 1, 'commented', 'z1', ${linus}, '${before(182)}', null, 'kubernetes rocks', null, 'neutral', true, 1),
    (${B}, 101, 101, 'commented', 'b1', ${bAda}, '${NOW.toISOString()}', null, 'kubernetes', null, 'positive', true, 101)`,
  `insert into tags (community_id, id, name, entity_types) values
    (${A}, 1, 'VIP', '{contact}'), (${A}, 2, 'Speaker', '{contact}'), (${A}, 3, 'Customer', '{organization}'),
    (${A}, 4, 'Answer', '{activity}'), (${B}, 101, 'VIP', '{contact}')`,
  `insert into tag_assignments (community_id, tag_id, entity_type, entity_id) values
    (${A}, 1, 'contact', ${ada}), (${A}, 2, 'contact', ${ada}), (${A}, 1, 'contact', ${grace}), (${A}, 2, 'contact', ${eve}),
    (${A}, 3, 'organization', 1), (${A}, 4, 'activity', 1),
    (${B}, 101, 'contact', ${nobody}),
    -- A stray row of community A naming community B's contact.
    (${A}, 1, 'contact', ${bAda})`,
  `insert into object_types (community_id, id, name) values (${A}, 1, 'Deal'), (${B}, 101, 'Deal')`,
  `insert into objects (community_id, id, object_type_id, name, record_key) values
    (${A}, 1, 1, 'Deal A', 'rk-1'), (${A}, 2, 1, 'Deal B', 'rk-2'), (${B}, 101, 101, 'Deal A', 'rk-1')`,
  `insert into segments (community_id, id, name, entity_type, object_type_id) values
    (${A}, 1, 'Champions', 'contact', null), (${A}, 2, 'Accounts', 'organization', null), (${A}, 3, 'Open deals', 'object', 1),
    (${B}, 101, 'Champions', 'contact', null)`,
  `insert into segment_memberships (community_id, segment_id, entity_id) values
    (${A}, 1, ${ada}), (${A}, 1, ${linus}), (${A}, 2, 1), (${A}, 3, 1), (${B}, 101, ${eve})`,
  `insert into custom_fields (community_id, id, name, entity_types, value_type, multivalue, enum_values, object_type_id) values
    (${A}, 1, 'Tier', '{contact}', 'string', false, '{}', null),
    (${A}, 2, 'Colours', '{contact}', 'enum', true, '{red,blue,green}', null),
    (${A}, 3, 'Stars', '{contact}', 'int', false, '{}', null),
    (${A}, 4, 'Renewal', '{contact}', 'date', false, '{}', null),
    (${A}, 5, 'Opted in', '{contact}', 'boolean', false, '{}', null),
    (${A}, 6, 'Plan', '{organization}', 'string', false, '{}', null),
    (${A}, 7, 'Amount', '{object}', 'number', false, '{}', 1),
    (${A}, 8, 'Ratio', '{contact}', 'number', false, '{}', null),
    (${B}, 101, 'Tier', '{contact}', 'string', false, '{}', null)`,
  `insert into custom_field_values (community_id, entity_type, entity_id, custom_field_id, value) values
    (${A}, 'contact', ${ada}, 1, '{"type": "string", "value": "Gold"}'),
    (${A}, 'contact', ${grace}, 1, '{"type": "string", "value": "silver"}'),
    (${A}, 'contact', ${ada}, 2, '{"type": "enum", "value": ["red", "blue"]}'),
    (${A}, 'contact', ${grace}, 2, '{"type": "enum", "value": ["blue"]}'),
    (${A}, 'contact', ${linus}, 2, '{"type": "enum", "value": "green"}'),
    (${A}, 'contact', ${ada}, 3, '{"type": "int", "value": 10}'),
    (${A}, 'contact', ${grace}, 3, '{"type": "int", "value": 20}'),
    (${A}, 'contact', ${linus}, 3, '{"type": "int", "value": 30}'),
    (${A}, 'contact', ${eve}, 3, '{"type": "int", "value": "abc"}'),
    (${A}, 'contact', ${ada}, 4, '{"type": "date", "value": "2024-01-31"}'),
    (${A}, 'contact', ${grace}, 4, '{"type": "date", "value": "2024-02-01"}'),
    (${A}, 'contact', ${linus}, 4, '{"type": "date", "value": "2024-06-15"}'),
    (${A}, 'contact', ${eve}, 4, '{"type": "date", "value": "2024-06-08"}'),
    (${A}, 'contact', ${nobody}, 4, '{"type": "date", "value": 20240101}'),
    (${A}, 'contact', ${ada}, 5, '{"type": "boolean", "value": true}'),
    (${A}, 'contact', ${grace}, 5, '{"type": "boolean", "value": false}'),
    (${A}, 'contact', ${linus}, 5, '{"type": "boolean", "value": "true"}'),
    (${A}, 'organization', 1, 6, '{"type": "string", "value": "enterprise"}'),
    (${A}, 'contact', 1, 6, '{"type": "string", "value": "enterprise"}'),
    (${A}, 'object', 2, 7, '{"type": "number", "value": 3.5}'),
    (${A}, 'contact', ${ada}, 8, '{"type": "number", "value": 2.5}'),
    (${A}, 'contact', ${grace}, 8, '{"type": "number", "value": -1e-7}'),
    (${B}, 'contact', ${nobody}, 101, '{"type": "string", "value": "Gold"}')`,
  `insert into lead_score_definitions (community_id, id, name, entity_type) values
    (${A}, 1, 'Fit', 'contact'), (${A}, 2, 'Account fit', 'organization'), (${B}, 101, 'Fit', 'contact')`,
  `insert into lead_scores (community_id, score_id, entity_type, entity_id, score, percentile) values
    (${A}, 1, 'contact', ${ada}, 90, 99), (${A}, 1, 'contact', ${grace}, 50, 50), (${A}, 1, 'contact', ${linus}, 10, 5),
    (${A}, 2, 'organization', 1, 70, 80), (${B}, 101, 'contact', ${nobody}, 100, 100)`,
  `insert into website_visits (community_id, id, contact_id, organization_id, url, visit_time) values
    (${A}, 1, ${ada}, 1, 'https://example.com/pricing', '${before(1)}'),
    (${A}, 2, ${grace}, null, 'https://example.com/docs', '${before(30)}'),
    (${B}, 101, ${bAda}, 101, 'https://example.com/pricing', '${before(1)}')`,
  // Prospector data is shared by every community: no community_id.
  `insert into prospector_companies (id, primary_domain, name, industry_code, employees, raised, technologies, country_code, city, score) values
    (1, 'initech.com', 'Initech', 541511, 50, 1000000, '{PostgreSQL,Salesforce}', 'DE', 'Berlin', 80),
    (2, 'globex.com', 'Globex', null, null, null, '{}', null, null, null)`,
  `insert into prospector_contacts (id, company_id, name, full_name, linkedin_handle, title, seniority, role, skills, country,
      linkedin_follower_count, last_org_change_at) values
    (1, 1, 'Ada Lovelace', 'Ada Lovelace', 'ada-lovelace', 'Engineer', 'Senior', 'Engineering', '{Kubernetes,Go}', 'United Kingdom', 1200,
      '${before(30)}'),
    (2, null, 'Grace Hopper', 'Grace Hopper', 'grace-hopper', null, null, null, '{}', null, null, null)`,
];

const CUSTOM_FIELDS = new Map<number, CustomFieldFilterDefinition>([
  [1, { valueType: 'string', entityTypes: ['contact'] }],
  [2, { valueType: 'enum', entityTypes: ['contact'], multivalue: true }],
  [3, { valueType: 'int', entityTypes: ['contact'] }],
  [4, { valueType: 'date', entityTypes: ['contact'] }],
  [5, { valueType: 'boolean', entityTypes: ['contact'] }],
  [6, { valueType: 'string', entityTypes: ['organization'] }],
  [7, { valueType: 'number', entityTypes: ['object'] }],
  [8, { valueType: 'number', entityTypes: ['contact'] }],
]);

export const DYNAMIC: Record<FilterEntity, DynamicFields> = {
  contact: { customFields: CUSTOM_FIELDS, leadScores: new Set([1]) },
  organization: { customFields: CUSTOM_FIELDS, leadScores: new Set([2]) },
  activity: {},
  object: { customFields: CUSTOM_FIELDS },
  website_visit: {},
  job_opening: {},
  news: {},
  prospector_contact: {},
  prospector_company: {},
};

async function seed(db: Kysely<DB>): Promise<void> {
  for (const statement of SEED) await sql.raw(statement).execute(db);
}

/** The IDs of `entity` rows of `community` that the filter matches, in order. */
export async function matching(
  db: Kysely<DB>,
  entity: FilterEntity,
  filter: unknown,
  options: { community?: number; dynamic?: DynamicFields } = {},
): Promise<number[]> {
  const community = options.community ?? A;
  const { table, alias, shared } = ENTITY_TABLES[entity];
  const fragment = compileLightFilter(typeof filter === 'string' ? filter : JSON.stringify(filter), {
    entity,
    communityId: community,
    now: NOW,
    ...(options.dynamic ?? DYNAMIC[entity]),
  });
  const result = await sql<{ id: number }>`select ${sql.ref(`${alias}.id`)} as id from ${sql.raw(`${table} ${alias}`)}
    where ${shared ? sql`true` : sql`${sql.ref(`${alias}.community_id`)} = ${community}`} and (${fragment}) order by 1`.execute(db);
  return result.rows.map((row) => row.id);
}

/** A fresh database of the engine with the fixture, for the enclosing describe; `ready` gets its handle. */
export function useSeededDatabase(engine: Engine, ready: (db: Kysely<DB>) => void): void {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(engine);
    await seed(database.database.db);
    ready(database.database.db);
  });
  afterAll(async () => {
    await database?.drop();
  });
}
