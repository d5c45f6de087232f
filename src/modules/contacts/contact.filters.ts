import { sql, type SqlBool } from 'kysely';
import { col, instant, numberField, oneOf, prefixedId, scalarField, setField, timeField, type FilterField } from '../../filters/field-kinds.ts';
import type { ListFields } from '../../filters/field-registry.ts';
import { locationFields } from '../locations/index.ts';
import { segmentsField } from '../segments/index.ts';
import { tagsField } from '../tags/index.ts';

const IDENTITY_TYPES = ['email', 'github', 'twitter', 'linkedin', 'discord'] as const;

/** Activity-count windows (docs/behaviour.md, Record fields): activities with activity_time in (now − window, now]. */
export const ACTIVITY_WINDOWS: Record<string, number> = { '7d': 7, '28d': 28, '8w': 56, '12w': 84, '6m': 182, '1y': 365 };

function activityCountField(window: string, days: number): FilterField {
  // A correlated count over activities_contact_time (community_id, contact_id, activity_time): one index
  // range per contact, never a scan of the community's activities.
  return numberField(
    `activityCount${window}`,
    (ctx) => sql`(select count(*) from activities f_a where f_a.community_id = ${ctx.communityId} and f_a.contact_id = c.id
      and f_a.activity_time > ${instant(new Date(ctx.now.getTime() - days * 86_400_000))} and f_a.activity_time <= ${instant(ctx.now)})`,
  );
}

/** The contact list's own filterable fields; the list query names contacts `c`. */
export const CONTACT_FILTERS: ListFields = {
  listName: 'contacts',
  table: 'contacts',
  alias: 'c',
  fields: [
    scalarField('name', () => col('c', 'name')),
    scalarField('fullName', () => col('c', 'full_name')),
    scalarField('primaryEmail', () => col('c', 'primary_email')),
    scalarField('title', () => col('c', 'title')),
    scalarField('companyName', () => col('c', 'company_name')),
    tagsField('c', 'contact'),
    segmentsField('c', 'contact'),
    setField(
      'profiles',
      (ctx, match) => sql<SqlBool>`exists (select 1 from contact_identities f_ci where f_ci.community_id = ${ctx.communityId}
      and f_ci.contact_id = c.id and ${match(sql.ref('f_ci.type'))})`,
      { type: 'text', item: oneOf(IDENTITY_TYPES, 'a profile type') },
    ),
    ...locationFields('c'),
    ...Object.entries(ACTIVITY_WINDOWS).map(([window, days]) => activityCountField(window, days)),
    numberField('activityCountAll', () => col('c', 'activity_count_all')),
    timeField('latestActivityTime', col('c', 'latest_activity_at')),
    timeField('firstActivityTime', col('c', 'first_activity_at')),
    setField(
      'providers',
      // A source profile in the source, or an activity from it. The activities are probed per contact through
      // activities_contact_time: `offset 0` keeps PostgreSQL from turning the EXISTS into a hash of every
      // activity of the community from those sources, which it otherwise may prefer.
      (ctx, match) => sql<SqlBool>`(exists (select 1 from source_profiles f_sp where f_sp.community_id = ${ctx.communityId}
      and f_sp.contact_id = c.id and ${match(sql.ref('f_sp.source_id'))})
      or exists (select 1 from activities f_pa where f_pa.community_id = ${ctx.communityId}
      and f_pa.contact_id = c.id and ${match(sql.ref('f_pa.source_id'))} offset 0))`,
      { type: 'bigint', item: prefixedId('provider', 'a provider') },
    ),
    scalarField('organizationId', () => col('c', 'organization_id'), { type: 'bigint', item: prefixedId('organization', 'an organization') }),
  ],
};
