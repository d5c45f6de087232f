import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { CursorPosition } from '../../core/cursor.ts';
import type { Executor } from '../../core/executor.ts';

export const LOCATION_TYPES = ['city', 'country_region', 'country', 'world_region'] as const;
export type LocationType = (typeof LOCATION_TYPES)[number];

/** A contact's location columns. */
export interface ContactPlace {
  city: string | null;
  region: string | null;
  country: string | null;
  worldRegion: string | null;
}

export interface LocationRow {
  id: number;
  type: LocationType;
  name: string;
  city: string | null;
  region: string | null;
  country: string | null;
  memberCount: number;
}

interface LocationKey {
  type: LocationType;
  name: string;
  city: string | null;
  region: string | null;
  country: string | null;
}

/**
 * The location rows a contact counts in: its city ("Austin, Texas, United States"), its region within its
 * country ("Texas, United States"), its country and its world region, each when known.
 */
export function locationKeysOf(place: ContactPlace | null | undefined): LocationKey[] {
  if (!place) return [];
  const keys: LocationKey[] = [];
  const join = (...parts: (string | null)[]) => parts.filter((part): part is string => !!part).join(', ');
  if (place.city)
    keys.push({ type: 'city', name: join(place.city, place.region, place.country), city: place.city, region: place.region, country: place.country });
  if (place.region && place.country) {
    keys.push({ type: 'country_region', name: join(place.region, place.country), city: null, region: place.region, country: place.country });
  }
  if (place.country) keys.push({ type: 'country', name: place.country, city: null, region: null, country: place.country });
  if (place.worldRegion) keys.push({ type: 'world_region', name: place.worldRegion, city: null, region: null, country: null });
  return keys;
}

/** The location columns of the contacts (missing contacts are left out). */
export async function placesOf(db: Executor, communityId: number, contactIds: number[]): Promise<ContactPlace[]> {
  if (contactIds.length === 0) return [];
  return db
    .selectFrom('contacts')
    .select(['city', 'region', 'country', 'world_region as worldRegion'])
    .where('community_id', '=', communityId)
    .where('id', 'in', contactIds)
    .execute();
}

/**
 * Moves contacts between location rows: every key of a place in `left` loses one member, every key of a
 * place in `joined` gains one. Deltas (not recounts) so that concurrent pushes never lose an update: the
 * row lock of the upsert orders them. The caller holds the contacts' row locks, so `left` is what they
 * really were. Keys are written in (type, name) order, so concurrent pushes cannot deadlock on them.
 */
export async function moveMembers(trx: Transaction<DB>, communityId: number, left: ContactPlace[], joined: ContactPlace[]): Promise<void> {
  const deltas = new Map<string, LocationKey & { delta: number }>();
  const add = (places: ContactPlace[], delta: number) => {
    for (const place of places) {
      for (const key of locationKeysOf(place)) {
        const id = `${key.type}\u0000${key.name}`;
        const entry = deltas.get(id) ?? { ...key, delta: 0 };
        entry.delta += delta;
        deltas.set(id, entry);
      }
    }
  };
  add(left, -1);
  add(joined, +1);
  const changes = [...deltas.values()]
    .filter((entry) => entry.delta !== 0)
    .sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (changes.length === 0) return;
  await sql`
    insert into locations (community_id, type, name, city, region, country, member_count)
    select ${communityId}::bigint, k.type, k.name, k.city, k.region, k.country, k.delta
    from unnest(
      ${changes.map((c) => c.type)}::text[], ${changes.map((c) => c.name)}::text[], ${changes.map((c) => c.city)}::text[],
      ${changes.map((c) => c.region)}::text[], ${changes.map((c) => c.country)}::text[], ${changes.map((c) => c.delta)}::int[]
    ) with ordinality as k(type, name, city, region, country, delta, n)
    order by k.n
    on conflict (community_id, type, name) do update set member_count = locations.member_count + excluded.member_count
  `.execute(trx);
}

const columns = ['id', sql<LocationType>`type`.as('type'), 'name', 'city', 'region', 'country', 'member_count as memberCount'] as const;

export async function findLocation(db: Executor, communityId: number, id: number): Promise<LocationRow | undefined> {
  return db
    .selectFrom('locations')
    .select(columns)
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .where('member_count', '>', 0)
    .executeTakeFirst();
}

/**
 * One page of a type's locations with members, by member count descending, ties by ID ascending: the
 * order of the index locations_members (community_id, type, member_count desc, id), so the seek is one
 * index range whatever the page.
 */
export async function pageLocations(
  db: Executor,
  communityId: number,
  type: LocationType,
  page: { limit: number; after: CursorPosition | null },
): Promise<{ rows: LocationRow[]; next: CursorPosition | null }> {
  let query = db.selectFrom('locations').select(columns).where('community_id', '=', communityId).where('type', '=', type).where('member_count', '>', 0);
  if (page.after) {
    const [count, id] = page.after;
    query = query.where((eb) => eb.or([eb('member_count', '<', Number(count)), eb.and([eb('member_count', '=', Number(count)), eb('id', '>', Number(id))])]));
  }
  const found = await query
    .orderBy('member_count', 'desc')
    .orderBy('id', 'asc')
    .limit(page.limit + 1)
    .execute();
  const rows = found.slice(0, page.limit);
  const last = rows[rows.length - 1];
  return { rows, next: found.length > page.limit && last ? [last.memberCount, last.id] : null };
}

export async function countLocations(db: Executor, communityId: number, type: LocationType): Promise<number> {
  const row = await db
    .selectFrom('locations')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('community_id', '=', communityId)
    .where('type', '=', type)
    .where('member_count', '>', 0)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
