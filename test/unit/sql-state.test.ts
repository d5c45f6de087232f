import { describe, expect, it } from 'vitest';
import { isForeignKeyViolation, isUniqueViolation, sqlState } from '../../src/db/errors.ts';

describe('sqlState', () => {
  it('is the code a database error carries', () => {
    expect(sqlState({ code: '23505', message: 'duplicate key value violates unique constraint "tags_pkey"' })).toBe('23505');
    expect(sqlState({ code: '57014', message: 'canceling statement due to statement timeout' })).toBe('57014');
  });

  it('recognises the classes a Citus coordinator relays from a shard copy without their code', () => {
    // As the coordinator answered an INSERT … SELECT into contact_identities that lost a race on a worker.
    const relayed = { code: 'XX000', message: 'duplicate key value violates unique constraint "contact_identities_pkey_102594"' };
    expect(sqlState(relayed)).toBe('23505');
    expect(isUniqueViolation(relayed)).toBe(true);
    expect(isForeignKeyViolation({ code: 'XX000', message: 'insert or update on table "tags_102008" violates foreign key constraint "x"' })).toBe(true);
    expect(sqlState({ code: 'XX000', message: 'deadlock detected' })).toBe('40P01');
  });

  it('leaves other internal errors and errors without a code alone', () => {
    expect(sqlState({ code: 'XX000', message: 'could not create distributed plan' })).toBe('XX000');
    expect(sqlState(new Error('duplicate key value violates unique constraint'))).toBeUndefined();
    expect(sqlState(null)).toBeUndefined();
    expect(isUniqueViolation({ code: '23503' })).toBe(false);
  });
});
