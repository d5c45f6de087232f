import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { ID_PREFIXES, parseKey } from '../../core/ids.ts';
import * as tags from './tag.repository.ts';
import type { TagEntityType } from './tag.repository.ts';
import type { Executor } from '../../core/executor.ts';

/**
 * The tag API that other modules (ingestion, bulk updates) call inside their own transactions. Nothing
 * here opens a transaction or throws for bad input: invalid references come back in `invalid`.
 */

/** A tag named in a push: by ID (`l_N`, or the bare number) or by name. */
export type TagRef = { type: 'id'; id: string } | { type: 'name'; name: string };

export type TaggedEntity = 'contact' | 'organization' | 'activity';

/** Longest tag name accepted (the tag routes apply the same limit). */
export const MAX_TAG_NAME = 255;

/** The tag ID of a reference: `l_N` or a bare integer; null for anything else. */
export function parseTagKey(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : null;
  if (typeof value !== 'string') return null;
  const text = value.trim();
  return parseKey(text.startsWith(ID_PREFIXES.tag) ? text.slice(ID_PREFIXES.tag.length) : text);
}

/**
 * Resolves tag references to tag IDs, in the order first named, without duplicates.
 * - `{type: "id"}`: the tag must exist in the community, not be deleted, and allow `entityType`;
 *   otherwise the ID, as given, is listed in `invalid`.
 * - `{type: "name"}`: the tag with that name (trimmed, case-insensitive) is used; a missing one is created
 *   allowing `entityType`; a deleted one is undeleted; one that does not allow `entityType` yet is extended
 *   to allow it. An empty or overlong name, or one with a NUL character, is listed in `invalid`.
 * A reference that is not a well-formed TagRef is listed in `invalid` as text.
 */
export async function resolveTagRefs(
  trx: Kysely<DB> | Transaction<DB>,
  communityId: number,
  refs: TagRef[],
  entityType: TagEntityType,
): Promise<{ tagIds: number[]; invalid: string[] }> {
  const invalid: string[] = [];
  // Per reference, in order: the tag ID (known at once for IDs) or the index of its name in `names`.
  const slots: ({ kind: 'id'; key: number; given: string } | { kind: 'name'; index: number })[] = [];
  const names: string[] = [];

  for (const ref of refs as unknown[]) {
    const candidate = ref as { type?: unknown; id?: unknown; name?: unknown } | null;
    if (candidate?.type === 'id') {
      const key = parseTagKey(candidate.id);
      if (key === null) invalid.push(String(candidate.id));
      else slots.push({ kind: 'id', key, given: String(candidate.id) });
    } else if (candidate?.type === 'name') {
      const name = typeof candidate.name === 'string' ? candidate.name.trim() : '';
      // PostgreSQL text cannot hold NUL.
      if (!name || name.length > MAX_TAG_NAME || name.includes('\u0000')) invalid.push(String(candidate.name));
      else slots.push({ kind: 'name', index: names.push(name) - 1 });
    } else {
      invalid.push(JSON.stringify(ref) ?? String(ref));
    }
  }

  const idKeys = [...new Set(slots.flatMap((slot) => (slot.kind === 'id' ? [slot.key] : [])))];
  const assignable = new Set(await tags.findAssignableTagIds(trx, communityId, idKeys, entityType));

  let named: ({ id: number; usable: boolean } | null)[] = [];
  if (names.length > 0) {
    // Write only when needed: most pushes name tags that already exist and fit, and reading them takes
    // no row lock, so concurrent pushes naming the same tag do not queue behind each other.
    named = await tags.matchTagNames(trx, communityId, names, entityType);
    const toWrite = names.filter((_, index) => !named[index]?.usable);
    if (toWrite.length > 0) {
      await tags.ensureTagsByName(trx, communityId, toWrite, entityType);
      named = await tags.matchTagNames(trx, communityId, names, entityType);
    }
  }

  const tagIds: number[] = [];
  const seen = new Set<number>();
  for (const slot of slots) {
    let id: number | null = null;
    if (slot.kind === 'id') {
      if (assignable.has(slot.key)) id = slot.key;
      else invalid.push(slot.given);
    } else {
      const match = named[slot.index];
      if (match?.usable) id = match.id;
      else invalid.push(names[slot.index]!);
    }
    if (id !== null && !seen.has(id)) {
      seen.add(id);
      tagIds.push(id);
    }
  }
  return { tagIds, invalid: [...new Set(invalid)] };
}

/**
 * Assigns the tags to one contact, organization or activity, in one statement. Idempotent: tags already
 * assigned stay as they are. Tags that do not exist or are deleted (even concurrently) are skipped.
 */
export async function assignTags(trx: Executor, communityId: number, entityType: TaggedEntity, entityId: number, tagIds: number[]): Promise<void> {
  await tags.insertAssignments(trx, communityId, entityType, entityId, [...new Set(tagIds)]);
}

/** Removes the tags from one contact, organization or activity; tags it does not carry are ignored. */
export async function unassignTags(trx: Executor, communityId: number, entityType: TaggedEntity, entityId: number, tagIds: number[]): Promise<void> {
  await tags.deleteAssignments(trx, communityId, entityType, entityId, [...new Set(tagIds)]);
}
