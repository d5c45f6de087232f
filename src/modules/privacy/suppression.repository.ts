import { sql, type Kysely } from 'kysely';
import type { Executor } from '../../core/executor.ts';
import { jsonRow } from '../../core/json-rows.ts';
import { readTogether, type Lookup } from '../../core/lookups.ts';
import type { DB } from '../../db/schema.ts';
import { identityHash, identityKey, type Identity } from '../identity/index.ts';

type Key = Pick<Identity, 'type' | 'value'>;

/**
 * The suppression list: one-way hashes (`identityHash`) of identities whose owner asked to be erased. A
 * push naming one of them must not bring the person back.
 *
 * The `identityKey` (`type:value`) of each of `identities` that is on the community's list, as a lookup
 * that can share a statement with others (readTogether).
 */
export function suppressedAmong(communityId: number, identities: Key[]): Lookup<Set<string>> {
  const byHash = new Map(identities.map((identity) => [identityHash(identity), identity]));
  return {
    rows: identities.length
      ? sql`select identity_type as type, value_hash as hash from suppressions
          where community_id = ${communityId} and value_hash = any(${[...byHash.keys()]}::text[])`
      : null,
    read(rows) {
      const found = new Set<string>();
      for (const json of rows) {
        const row = suppressionRow(json);
        const identity = byHash.get(row.hash);
        if (identity && identity.type === row.type) found.add(identityKey(identity));
      }
      return found;
    },
  };
}

const suppressionRow = jsonRow('suppression', { type: 'string', hash: 'string' });

/** suppressedAmong, read by itself. */
export async function findSuppressed(db: Executor, communityId: number, identities: Key[]): Promise<Set<string>> {
  return (await readTogether(db, { suppressed: suppressedAmong(communityId, identities) })).suppressed;
}

/** Puts identities on the list (those already there stay as they are); returns how many were added. */
export async function suppress(db: Kysely<DB>, communityId: number, identities: Key[], removalRequestId: number, now: Date): Promise<number> {
  if (identities.length === 0) return 0;
  const result = await db
    .insertInto('suppressions')
    .values(
      identities.map((identity) => ({
        community_id: communityId,
        identity_type: identity.type,
        value_hash: identityHash(identity),
        removal_request_id: removalRequestId,
        created_at: now,
      })),
    )
    .onConflict((oc) => oc.columns(['community_id', 'identity_type', 'value_hash']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n);
}
