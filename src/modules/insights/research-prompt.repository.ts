import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Executor } from '../../core/executor.ts';

export interface ResearchPromptRow {
  id: number;
  key: string;
  name: string;
  prompt: string;
  isPrimary: boolean;
  createdAt: Date;
  updatedAt: Date;
  retiredAt: Date | null;
  /** Organizations with an answer to show (imported or the model's). */
  answerCount: number;
}

const columns = sql`
  p.id, p.key, p.name, p.prompt, p.is_primary as "isPrimary", p.created_at as "createdAt", p.updated_at as "updatedAt",
  p.retired_at as "retiredAt",
  (select count(*) from research_answers r where r.community_id = p.community_id and r.prompt_id = p.id and r.answer is not null)::int as "answerCount"`;

export async function researchPrompts(db: Executor, communityId: number, includeRetired: boolean): Promise<ResearchPromptRow[]> {
  const { rows } = await sql<ResearchPromptRow>`
    select ${columns} from research_prompts p
    where p.community_id = ${communityId} ${includeRetired ? sql`` : sql`and p.retired_at is null`}
    order by p.retired_at is not null, p.key, p.id`.execute(db);
  return rows;
}

/**
 * The live prompt with this key; with `forUpdate`, locked until the transaction ends, by a statement of its
 * own (a cluster cannot lock rows in a query with a subquery, as the answer count is).
 */
export async function livePrompt(db: Executor, communityId: number, key: string, forUpdate = false): Promise<ResearchPromptRow | undefined> {
  if (forUpdate) await sql`select 1 from research_prompts where community_id = ${communityId} and key = ${key} and retired_at is null for update`.execute(db);
  const { rows } = await sql<ResearchPromptRow>`
    select ${columns} from research_prompts p where p.community_id = ${communityId} and p.key = ${key} and p.retired_at is null`.execute(db);
  return rows[0];
}

export async function promptById(db: Executor, communityId: number, id: number): Promise<ResearchPromptRow | undefined> {
  const { rows } = await sql<ResearchPromptRow>`select ${columns} from research_prompts p where p.community_id = ${communityId} and p.id = ${id}`.execute(db);
  return rows[0];
}

/** "rp" in ASCII: the first key of the lock that orders changes to a community's prompt keys and primary prompt. */
const PROMPTS_LOCK = 0x7270;

export async function lockPrompts(trx: Transaction<DB>, communityId: number): Promise<void> {
  await sql`select pg_advisory_xact_lock(${PROMPTS_LOCK}, ${communityId}::int)`.execute(trx);
}

export async function insertPrompt(
  trx: Transaction<DB>,
  communityId: number,
  prompt: { key: string; name: string; prompt: string; isPrimary: boolean },
  now: Date,
): Promise<number> {
  const { rows } = await sql<{ id: number }>`
    insert into research_prompts (community_id, key, name, prompt, is_primary, created_at, updated_at)
    values (${communityId}, ${prompt.key}, ${prompt.name}, ${prompt.prompt}, ${prompt.isPrimary}, ${now}, ${now})
    returning id`.execute(trx);
  return Number(rows[0]!.id);
}

/** `updated_at` moves only when the question changes: the model's answers to the old one are then written again. */
export async function updatePrompt(
  trx: Transaction<DB>,
  communityId: number,
  id: number,
  prompt: { name: string; prompt: string; isPrimary: boolean },
  now: Date,
): Promise<void> {
  await sql`
    update research_prompts set name = ${prompt.name}, is_primary = ${prompt.isPrimary},
      updated_at = case when prompt is distinct from ${prompt.prompt} then ${now} else updated_at end, prompt = ${prompt.prompt}
    where community_id = ${communityId} and id = ${id}`.execute(trx);
}

/** One primary prompt at most: the one made primary takes it from the others. */
export async function demoteOthers(trx: Transaction<DB>, communityId: number, id: number): Promise<void> {
  await sql`update research_prompts set is_primary = false where community_id = ${communityId} and id <> ${id} and is_primary`.execute(trx);
}

export async function retirePrompt(trx: Transaction<DB>, communityId: number, id: number, now: Date): Promise<void> {
  await sql`update research_prompts set retired_at = ${now} where community_id = ${communityId} and id = ${id}`.execute(trx);
}
