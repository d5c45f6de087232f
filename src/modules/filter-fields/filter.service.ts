import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/schema.ts';
import { invalidParameters } from '../../core/errors.ts';
import { customFieldTx } from '../custom-fields/index.ts';
import { leadScoreTx } from '../lead-scores/index.ts';
import {
  compileLightFilter,
  CUSTOM_FIELD_ENTITIES,
  describeFields,
  FILTER_ENTITIES,
  LEAD_SCORE_ENTITIES,
  type DynamicFields,
  type FilterEntity,
} from './entity-filters.ts';
import { hasTrigramIndex } from './filter.repository.ts';
import type { CompiledFilter } from '../../filters/light-filter.param.ts';

/** lightFilter for every list: the community's custom fields and lead scores, compiled with the service clock. */
export function createFilterService(deps: { db: Kysely<DB>; clock: Clock }) {
  // Whether migration 0011 could make the trigram index (the engine had pg_trgm): read once, and again
  // after a failed read.
  let trigramIndexes: Promise<boolean> | null = null;
  const hasTrigramIndexes = () =>
    (trigramIndexes ??= hasTrigramIndex(deps.db).catch((error: unknown) => {
      trigramIndexes = null;
      throw error;
    }));

  async function dynamicFields(communityId: number, entity: FilterEntity, needed: { customFields: boolean; leadScores: boolean }): Promise<DynamicFields> {
    const customEntity = CUSTOM_FIELD_ENTITIES[entity];
    const scoreEntity = LEAD_SCORE_ENTITIES[entity];
    const [fields, scores] = await Promise.all([
      needed.customFields && customEntity ? customFieldTx.filterableFields(deps.db, communityId, customEntity) : [],
      needed.leadScores && scoreEntity ? leadScoreTx.definitionIds(deps.db, communityId, scoreEntity) : [],
    ]);
    return { customFields: new Map(fields.map(({ id, ...definition }) => [id, definition])), leadScores: new Set(scores) };
  }

  return {
    /**
     * Compiles a list's `lightFilter` parameter; null when there is none. The community's custom fields and
     * lead scores are read only when the expression could name one.
     */
    async compile(communityId: number, entity: FilterEntity, raw: string | undefined, now = deps.clock.now()): Promise<CompiledFilter | null> {
      if (raw === undefined) return null;
      const [dynamic, trigram] = await Promise.all([
        dynamicFields(communityId, entity, { customFields: raw.includes('cf_'), leadScores: raw.includes('ls_') }),
        raw.includes('like') ? hasTrigramIndexes() : false,
      ]);
      const where = compileLightFilter(raw, { entity, communityId, now, trigramIndexes: trigram, ...dynamic });
      // compileLightFilter has read the JSON, so this parse cannot fail.
      return { where, expression: JSON.parse(raw) as unknown };
    },

    /** GET /api/v2/filter-fields: the entity's filterable fields, its custom fields and lead scores included. */
    async describe(communityId: number, entity: string) {
      if (!isFilterEntity(entity)) throw invalidParameters(`entity ${JSON.stringify(entity)} is not one of ${FILTER_ENTITIES.join(', ')}`);
      return describeFields(entity, await dynamicFields(communityId, entity, { customFields: true, leadScores: true }));
    },
  };
}

function isFilterEntity(value: string): value is FilterEntity {
  return (FILTER_ENTITIES as readonly string[]).includes(value);
}

export type FilterService = ReturnType<typeof createFilterService>;
