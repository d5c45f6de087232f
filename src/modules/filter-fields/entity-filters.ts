import { createFilterRegistry, type FilterableList, type ListCompileOptions, type ListFields } from '../../filters/field-registry.ts';
import { ACTIVITY_FILTERS } from '../activities/index.ts';
import { JOB_OPENING_FILTERS, NEWS_FILTERS } from '../company-updates/index.ts';
import { CONTACT_FILTERS } from '../contacts/index.ts';
import { customFieldFamily, type CustomFieldDefinitions } from '../custom-fields/index.ts';
import type { CustomFieldEntity } from '../custom-fields/index.ts';
import { leadScoreFamily, type LeadScoreDefinitions } from '../lead-scores/index.ts';
import type { LeadScoreEntity } from '../lead-scores/index.ts';
import { OBJECT_FILTERS } from '../objects/index.ts';
import { ORGANIZATION_FILTERS } from '../organizations/index.ts';
import { PROSPECTOR_COMPANY_FILTERS, PROSPECTOR_CONTACT_FILTERS } from '../prospector/index.ts';
import { WEBSITE_VISIT_FILTERS } from '../website-visits/index.ts';

/**
 * Every list's filterable fields: each module's own (its `*.filters.ts`), and the community's custom
 * fields and lead scores for the lists whose records have them.
 */

const OWN_FIELDS = {
  contact: CONTACT_FILTERS,
  organization: ORGANIZATION_FILTERS,
  activity: ACTIVITY_FILTERS,
  object: OBJECT_FILTERS,
  website_visit: WEBSITE_VISIT_FILTERS,
  job_opening: JOB_OPENING_FILTERS,
  news: NEWS_FILTERS,
  prospector_contact: PROSPECTOR_CONTACT_FILTERS,
  prospector_company: PROSPECTOR_COMPANY_FILTERS,
} satisfies Record<string, ListFields>;

export type FilterEntity = keyof typeof OWN_FIELDS;

/** Lists with custom fields (custom_field_values.entity_type) and lead scores (lead_scores.entity_type). */
export const CUSTOM_FIELD_ENTITIES: Partial<Record<FilterEntity, CustomFieldEntity>> = {
  contact: 'contact',
  organization: 'organization',
  object: 'object',
};
export const LEAD_SCORE_ENTITIES: Partial<Record<FilterEntity, LeadScoreEntity>> = { contact: 'contact', organization: 'organization' };

type Definitions = CustomFieldDefinitions & LeadScoreDefinitions;

/** The community's custom fields and lead scores, as far as the caller looked them up. */
export type DynamicFields = Partial<Definitions>;

/**
 * Each list's base table and the alias its query must give it: compiled filters name the row by it.
 * `shared`: a reference table without `community_id` (prospector data).
 */
export const ENTITY_TABLES: Record<FilterEntity, { table: string; alias: string; shared?: boolean }> = OWN_FIELDS;

function withFamilies(entity: FilterEntity): FilterableList<Definitions> {
  const list = OWN_FIELDS[entity];
  const customEntity = CUSTOM_FIELD_ENTITIES[entity];
  const scoreEntity = LEAD_SCORE_ENTITIES[entity];
  return {
    ...list,
    families: [...(customEntity ? [customFieldFamily(customEntity, list.alias)] : []), ...(scoreEntity ? [leadScoreFamily(scoreEntity, list.alias)] : [])],
  };
}

const registry = createFilterRegistry<FilterEntity, Definitions>({
  contact: withFamilies('contact'),
  organization: withFamilies('organization'),
  activity: withFamilies('activity'),
  object: withFamilies('object'),
  website_visit: withFamilies('website_visit'),
  job_opening: withFamilies('job_opening'),
  news: withFamilies('news'),
  prospector_contact: withFamilies('prospector_contact'),
  prospector_company: withFamilies('prospector_company'),
});

export const { entities: FILTER_ENTITIES, resolveField, describeFields, validateLightFilter, compileLightFilter } = registry;

export type CompileOptions = ListCompileOptions<FilterEntity, Definitions>;
