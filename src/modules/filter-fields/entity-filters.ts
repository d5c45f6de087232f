import { createFilterRegistry, type FilterableList, type ListCompileOptions, type ListFields } from '../../filters/field-registry.ts';
import { ACTIVITY_FILTERS } from '../activities/activity.filters.ts';
import { CONTACT_FILTERS } from '../contacts/contact.filters.ts';
import { customFieldFamily, type CustomFieldDefinitions } from '../custom-fields/custom-field.filters.ts';
import type { CustomFieldEntity } from '../custom-fields/custom-field.repository.ts';
import { leadScoreFamily, type LeadScoreDefinitions } from '../lead-scores/lead-score.filters.ts';
import type { LeadScoreEntity } from '../lead-scores/lead-score.repository.ts';
import { OBJECT_FILTERS } from '../objects/object.filters.ts';
import { ORGANIZATION_FILTERS } from '../organizations/organization.filters.ts';
import { WEBSITE_VISIT_FILTERS } from '../website-visits/website-visit.filters.ts';

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

/** Each list's base table and the alias its query must give it: compiled filters name the row by it. */
export const ENTITY_TABLES: Record<FilterEntity, { table: string; alias: string }> = OWN_FIELDS;

function withFamilies(entity: FilterEntity): FilterableList<Definitions> {
  const list = OWN_FIELDS[entity];
  const customEntity = CUSTOM_FIELD_ENTITIES[entity];
  const scoreEntity = LEAD_SCORE_ENTITIES[entity];
  return {
    ...list,
    families: [
      ...(customEntity ? [customFieldFamily(customEntity, list.alias)] : []),
      ...(scoreEntity ? [leadScoreFamily(scoreEntity, list.alias)] : []),
    ],
  };
}

const registry = createFilterRegistry<FilterEntity, Definitions>({
  contact: withFamilies('contact'),
  organization: withFamilies('organization'),
  activity: withFamilies('activity'),
  object: withFamilies('object'),
  website_visit: withFamilies('website_visit'),
});

export const { entities: FILTER_ENTITIES, resolveField, describeFields, validateLightFilter, compileLightFilter } = registry;

export type CompileOptions = ListCompileOptions<FilterEntity, Definitions>;
