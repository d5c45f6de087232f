import fc from 'fast-check';
import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { DB } from '../../../src/db/schema.ts';
import { FILTER_ENTITIES, type FilterEntity } from '../../../src/modules/filter-fields/entity-filters.ts';
import { HearthError } from '../../../src/core/errors.ts';
import { ENGINES } from '../../helpers/test-database.ts';
import { anyFilterText, mutatedExpression, validExpression } from '../../unit/filters/arbitraries.ts';
import { DYNAMIC, matching, useSeededDatabase } from './fixture.ts';

/**
 * Random and mutated expressions against a real database, on both engines: each either compiles and runs
 * without any SQL error, or is refused with the 400 `invalid_filter`. Nothing else, ever: no SQL error
 * (which would be a 500), no other exception.
 */

const RUNS = 300;

describe.each(ENGINES)('lightFilter fuzz on %s', (engine) => {
  let db: Kysely<DB>;
  const outcomes = { ran: 0, refused: 0 };

  useSeededDatabase(engine, (ready) => {
    db = ready;
  });

  async function runOrRefuse(entity: FilterEntity, raw: unknown): Promise<void> {
    try {
      await matching(db, entity, raw);
      outcomes.ran += 1;
    } catch (error) {
      if (error instanceof HearthError && error.kind === 'invalid' && error.code === 'invalid_filter') {
        outcomes.refused += 1;
        return;
      }
      throw new Error(`${entity} filter ${typeof raw === 'string' ? raw : JSON.stringify(raw)} failed: ${(error as Error).message}`, { cause: error });
    }
  }

  it.each(FILTER_ENTITIES)('valid expressions for %s always run', async (entity) => {
    await fc.assert(
      fc.asyncProperty(validExpression(entity, DYNAMIC[entity]), async (expression) => {
        await matching(db, entity, expression);
      }),
      { numRuns: RUNS },
    );
  });

  it.each(FILTER_ENTITIES)('random and mutated expressions for %s run or are refused with a 400', async (entity) => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(anyFilterText(entity, DYNAMIC[entity]), mutatedExpression(entity, DYNAMIC[entity])), async (raw) => {
        await runOrRefuse(entity, raw);
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it('exercised both outcomes', () => {
    // Guards the generators: a fuzz run that only ever ran, or only ever refused, tested half the claim.
    expect(outcomes.ran).toBeGreaterThan(100);
    expect(outcomes.refused).toBeGreaterThan(100);
  });
});
