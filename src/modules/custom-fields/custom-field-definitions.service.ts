import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { invalidParameters, notFound } from '../../core/errors.ts';
import { formatId } from '../../core/ids.ts';
import * as fields from './custom-field.repository.ts';
import type { CustomFieldDefinitionRow, CustomFieldEntity } from './custom-field.repository.ts';
import { CUSTOM_FIELD_ENTITY_TYPES } from './custom-field.schemas.ts';
import type { TypedValue } from './custom-field-values.ts';

/** `sample_values` is free JSON: only `{type, value}` entries with a text type are shown. */
function sampleValues(stored: unknown): TypedValue[] {
  if (!Array.isArray(stored)) return [];
  return stored
    .filter((entry): entry is { type: string; value?: unknown } => typeof (entry as { type?: unknown } | null)?.type === 'string')
    .map((entry) => ({ type: entry.type, value: entry.value ?? null }));
}

function present(row: CustomFieldDefinitionRow) {
  return {
    id: formatId('custom_field', row.id),
    name: row.name,
    entityTypes: row.entityTypes,
    keyField: row.keyField,
    valueType: row.valueType,
    sampleValues: sampleValues(row.sampleValues),
    description: row.description,
    targetSubTypes: row.targetSubTypes,
    providedBy: row.providedBy,
    objectTypeId: row.objectTypeId === null ? null : formatId('object_type', row.objectTypeId),
  };
}

function isEntityType(value: string): value is CustomFieldEntity {
  return (CUSTOM_FIELD_ENTITY_TYPES as readonly string[]).includes(value);
}

export function createCustomFieldDefinitionService(deps: { db: Kysely<DB> }) {
  return {
    /** GET /api/v2/custom-fields: the live definitions in ID order, optionally of one entity type. */
    async list(communityId: number, query: { entityType?: string }) {
      const entityType = query.entityType ?? null;
      if (entityType !== null && !isEntityType(entityType)) {
        throw invalidParameters(`entityType ${JSON.stringify(entityType)} is not one of ${CUSTOM_FIELD_ENTITY_TYPES.join(', ')}`);
      }
      return (await fields.listLiveDefinitions(deps.db, communityId, entityType)).map(present);
    },

    /** GET /api/v2/custom-fields/{id}: a deleted definition answers as a missing one. */
    async get(communityId: number, id: number) {
      const row = await fields.findLiveDefinition(deps.db, communityId, id);
      if (!row) throw notFound('custom_field_not_found', `custom field ${formatId('custom_field', id)} not found`);
      return present(row);
    },
  };
}

export type CustomFieldDefinitionService = ReturnType<typeof createCustomFieldDefinitionService>;
