import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/schema.ts';
import { conflict, HearthError, invalidParameters, notFound } from '../../core/errors.ts';
import { formatId, ID_PREFIXES, parseKey } from '../../core/ids.ts';
import type { Writer } from '../../core/writer.ts';
import { auditTx } from '../audit/index.ts';
import { registrableDomain } from '../organizations/index.ts';
import * as answers from './research-answer.repository.ts';
import * as prompts from './research-prompt.repository.ts';
import type { ResearchPromptRow } from './research-prompt.repository.ts';
import { MAX_IMPORTED_ANSWERS, PROMPT_KEY } from './research-prompt-admin.schemas.ts';

export interface NewResearchPrompt {
  promptId: string;
  promptName: string;
  prompt: string;
  isPrimaryPrompt?: boolean;
}

export type ResearchPromptChanges = Partial<Pick<NewResearchPrompt, 'promptName' | 'prompt' | 'isPrimaryPrompt'>>;

/** One imported answer: the organization by its ID (o_N) or one of its domains. */
export interface ImportedAnswer {
  organizationId?: string;
  domain?: string;
  promptId: string;
  answer: string;
}

export function presentResearchPrompt(row: ResearchPromptRow) {
  return {
    promptId: row.key,
    promptName: row.name,
    prompt: row.prompt,
    isPrimaryPrompt: row.isPrimary,
    answerCount: row.answerCount,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    retiredAt: row.retiredAt?.toISOString() ?? null,
  };
}

/** A promptId as given on a path or the command line: a 400 that says what one looks like. */
export function checkPromptKey(value: string): string {
  if (!PROMPT_KEY.test(value)) {
    throw new HearthError(
      'invalid_prompt_id',
      `"${value}" is not a valid promptId (lowercase letters, digits, "-" and "_", up to 64, starting with a letter or digit)`,
      {
        invalidIds: [value],
      },
    );
  }
  return value;
}

/** How many faults of an import are named before "and N more". */
const NAMED_FAULTS = 10;

/**
 * Research prompts (docs/insights.md): questions an admin asks about every organization, answered by the
 * configured model or imported. A promptId is unique among the live prompts; at most one is primary;
 * retiring a prompt hides its answers from every read (they stay stored).
 */
export function createResearchPromptAdminService(deps: { db: Kysely<DB>; clock: Clock }) {
  const { db, clock } = deps;

  function cleaned(text: string, what: string): string {
    const value = text.trim();
    if (!value) throw invalidParameters(`${what} must not be blank`);
    return value;
  }

  async function liveOf(executor: Kysely<DB>, communityId: number, key: string, forUpdate = false): Promise<ResearchPromptRow> {
    const row = await prompts.livePrompt(executor, communityId, checkPromptKey(key), forUpdate);
    if (!row) throw notFound('research_prompt_not_found', `no live research prompt "${key}"`);
    return row;
  }

  async function byId(communityId: number, id: number) {
    return presentResearchPrompt((await prompts.promptById(db, communityId, id))!);
  }

  return {
    async list(communityId: number, includeRetired: boolean) {
      return (await prompts.researchPrompts(db, communityId, includeRetired)).map(presentResearchPrompt);
    },

    async get(communityId: number, key: string) {
      return presentResearchPrompt(await liveOf(db, communityId, key));
    },

    /** POST /api/v2/admin/research-prompts. */
    async create(writer: Writer, given: NewResearchPrompt) {
      const fields = {
        key: checkPromptKey(given.promptId),
        name: cleaned(given.promptName, 'promptName'),
        prompt: cleaned(given.prompt, 'prompt'),
        isPrimary: given.isPrimaryPrompt ?? false,
      };
      const id = await db.transaction().execute(async (trx) => {
        await prompts.lockPrompts(trx, writer.communityId);
        if (await prompts.livePrompt(trx, writer.communityId, fields.key)) throw conflict(`a live research prompt is already named "${fields.key}"`);
        const id = await prompts.insertPrompt(trx, writer.communityId, fields, clock.now());
        if (fields.isPrimary) await prompts.demoteOthers(trx, writer.communityId, id);
        await auditTx.recordWrite(trx, writer, {
          operation: 'research_prompt.create',
          entityIds: [fields.key],
          detail: { promptName: fields.name, isPrimaryPrompt: fields.isPrimary },
        });
        return id;
      });
      return byId(writer.communityId, id);
    },

    /** PATCH /api/v2/admin/research-prompts/{promptId}: what is given changes. */
    async update(writer: Writer, key: string, changes: ResearchPromptChanges) {
      const id = await db.transaction().execute(async (trx) => {
        await prompts.lockPrompts(trx, writer.communityId);
        const row = await liveOf(trx, writer.communityId, key, true);
        const fields = {
          name: changes.promptName === undefined ? row.name : cleaned(changes.promptName, 'promptName'),
          prompt: changes.prompt === undefined ? row.prompt : cleaned(changes.prompt, 'prompt'),
          isPrimary: changes.isPrimaryPrompt ?? row.isPrimary,
        };
        await prompts.updatePrompt(trx, writer.communityId, row.id, fields, clock.now());
        if (fields.isPrimary) await prompts.demoteOthers(trx, writer.communityId, row.id);
        await auditTx.recordWrite(trx, writer, { operation: 'research_prompt.update', entityIds: [row.key], detail: { changed: Object.keys(changes).sort() } });
        return row.id;
      });
      return byId(writer.communityId, id);
    },

    /** DELETE /api/v2/admin/research-prompts/{promptId}: retired, its answers kept but no longer shown. */
    async retire(writer: Writer, key: string) {
      const id = await db.transaction().execute(async (trx) => {
        await prompts.lockPrompts(trx, writer.communityId);
        const row = await liveOf(trx, writer.communityId, key, true);
        await prompts.retirePrompt(trx, writer.communityId, row.id, clock.now());
        await auditTx.recordWrite(trx, writer, { operation: 'research_prompt.retire', entityIds: [row.key] });
        return row.id;
      });
      return byId(writer.communityId, id);
    },

    /**
     * POST /api/v2/admin/research-answers and `hearth research import`: answers checked whole first (every
     * organization and prompt must exist), then stored together or not at all. `position` names an answer
     * in faults (its line in a file; its index in a request).
     */
    async importAnswers(writer: Writer, given: ImportedAnswer[], position: (index: number) => string = (index) => `answers[${index}]`) {
      if (given.length > MAX_IMPORTED_ANSWERS) throw invalidParameters(`at most ${MAX_IMPORTED_ANSWERS} answers at a time`);
      const faults: string[] = [];
      const orgIds = new Map<number, number>();
      const domains = new Map<number, string>();
      given.forEach((item, index) => {
        const at = position(index);
        if ((item.organizationId === undefined) === (item.domain === undefined)) {
          faults.push(`${at}: give organizationId or domain (one of them)`);
        } else if (item.organizationId !== undefined) {
          const key = item.organizationId.startsWith(ID_PREFIXES.organization) ? parseKey(item.organizationId.slice(ID_PREFIXES.organization.length)) : null;
          if (key === null) faults.push(`${at}: "${item.organizationId}" is not an organization ID (o_<number>)`);
          else orgIds.set(index, key);
        } else {
          const domain = registrableDomain(item.domain) ?? item.domain!.trim().toLowerCase();
          domains.set(index, domain);
        }
        if (typeof item.answer !== 'string' || !item.answer.trim()) faults.push(`${at}: answer must not be blank`);
        else if (item.answer.length > 4000) faults.push(`${at}: answer is longer than 4000 characters`);
      });
      const [existing, byDomain, promptIds] = await Promise.all([
        answers.existingOrganizations(db, writer.communityId, [...new Set(orgIds.values())]),
        answers.organizationsOfDomains(db, writer.communityId, [...new Set(domains.values())]),
        answers.livePromptIds(db, writer.communityId, [...new Set(given.map((item) => item.promptId))]),
      ]);
      const rows: { organizationId: number; promptId: number; answer: string }[] = [];
      given.forEach((item, index) => {
        const at = position(index);
        const orgId = orgIds.has(index)
          ? existing.has(orgIds.get(index)!)
            ? orgIds.get(index)!
            : null
          : domains.has(index)
            ? (byDomain.get(domains.get(index)!) ?? null)
            : undefined;
        if (orgId === null)
          faults.push(`${at}: no organization ${orgIds.has(index) ? formatId('organization', orgIds.get(index)!) : `with the domain "${item.domain}"`}`);
        const promptId = promptIds.get(item.promptId);
        if (promptId === undefined) faults.push(`${at}: no live research prompt "${item.promptId}"`);
        if (typeof orgId === 'number' && promptId !== undefined) rows.push({ organizationId: orgId, promptId, answer: item.answer.trim() });
      });
      if (faults.length) {
        const more = faults.length > NAMED_FAULTS ? `; and ${faults.length - NAMED_FAULTS} more` : '';
        throw invalidParameters(`nothing was imported: ${faults.slice(0, NAMED_FAULTS).join('; ')}${more}`);
      }
      // The same organization and prompt twice: the last answer given wins.
      const last = [...new Map(rows.map((row) => [`${row.organizationId}:${row.promptId}`, row])).values()];
      await db.transaction().execute(async (trx) => {
        await answers.importAnswers(trx, writer.communityId, last, clock.now());
        await auditTx.recordWrite(trx, writer, {
          operation: 'research_answer.import',
          entityIds: [...new Set(last.map((row) => formatId('organization', row.organizationId)))],
          detail: { answers: last.length, prompts: [...new Set(given.map((item) => item.promptId))].sort() },
        });
      });
      return { imported: last.length };
    },
  };
}

export type ResearchPromptAdminService = ReturnType<typeof createResearchPromptAdminService>;
