import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Executor } from '../../core/executor.ts';

/** Which of `ids` are organizations of the community. */
export async function existingOrganizations(db: Executor, communityId: number, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const { rows } = await sql<{ id: number }>`select id from organizations where community_id = ${communityId} and id = any(${ids}::bigint[])`.execute(db);
  return new Set(rows.map((row) => Number(row.id)));
}

/** The organization of each of `domains` that one has (any of its domains, not only the primary one). */
export async function organizationsOfDomains(db: Executor, communityId: number, domains: string[]): Promise<Map<string, number>> {
  if (domains.length === 0) return new Map();
  const { rows } = await sql<{ domain: string; id: number }>`
    select domain, organization_id as id from organization_domains where community_id = ${communityId} and domain = any(${domains}::text[])`.execute(db);
  return new Map(rows.map((row) => [row.domain, Number(row.id)]));
}

/** The live prompts with these keys, by key. */
export async function livePromptIds(db: Executor, communityId: number, keys: string[]): Promise<Map<string, number>> {
  if (keys.length === 0) return new Map();
  const { rows } = await sql<{ key: string; id: number }>`
    select key, id from research_prompts where community_id = ${communityId} and key = any(${keys}::text[]) and retired_at is null`.execute(db);
  return new Map(rows.map((row) => [row.key, Number(row.id)]));
}

/** Imported answers replace whatever answer the organization had to the prompt, the model's included. */
export async function importAnswers(
  trx: Transaction<DB>,
  communityId: number,
  answers: { organizationId: number; promptId: number; answer: string }[],
  now: Date,
): Promise<void> {
  await sql`
    insert into research_answers (community_id, organization_id, prompt_id, answer, origin, input_hash, generated_at)
    select ${communityId}, v.organization_id, v.prompt_id, v.answer, 'import', null, ${now}
    from unnest(${answers.map((a) => a.organizationId)}::bigint[], ${answers.map((a) => a.promptId)}::bigint[], ${answers.map((a) => a.answer)}::text[])
      as v(organization_id, prompt_id, answer)
    on conflict (community_id, organization_id, prompt_id) do update
      set answer = excluded.answer, origin = 'import', input_hash = null, generated_at = excluded.generated_at`.execute(trx);
}
