import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/schema.ts';
import { HearthError, notFound } from '../../core/errors.ts';
import { formatId } from '../../core/ids.ts';
import type { Writer } from '../../core/writer.ts';
import { auditTx } from '../audit/index.ts';
import * as admin from './lead-score-admin.repository.ts';
import type { AdminLeadScoreRow, DefinitionFields } from './lead-score-admin.repository.ts';
import type { LeadScoreComputeService } from './lead-score-compute.service.ts';
import type { LeadScoreEntity } from './lead-score.repository.ts';
import { checkRules, presentRules, rulesInput, type RulesInput, type ScoreRules } from './lead-score-rules.ts';

export interface NewLeadScore extends RulesInput {
  name: string;
  description?: string | null;
  entityType: LeadScoreEntity;
  enabled?: boolean;
  isPrimaryScore?: boolean;
  outputType?: string;
}

export type LeadScoreChanges = Partial<Omit<NewLeadScore, 'entityType'>>;

const RULE_MEMBERS = ['halfLifeDays', 'lookbackDays', 'activityCap', 'scoreCap', 'weights', 'fit'] as const;

function present(row: AdminLeadScoreRow, recomputeJobId: number | null) {
  const rules = row.rules ? presentRules(row.rules) : null;
  return {
    id: formatId('lead_score', row.id),
    name: row.name,
    description: row.description,
    entityType: row.entityType,
    enabled: row.enabled,
    isPrimaryScore: row.isPrimaryScore,
    outputType: row.outputType,
    computed: rules !== null,
    halfLifeDays: rules?.halfLifeDays ?? null,
    lookbackDays: rules?.lookbackDays ?? null,
    activityCap: rules?.activityCap ?? null,
    scoreCap: rules?.scoreCap ?? null,
    weights: rules?.weights ?? [],
    fit: rules?.fit ?? [],
    version: row.version,
    computedVersion: row.computedVersion,
    computedAt: row.computedAt?.toISOString() ?? null,
    recomputeJobId,
    scoredCount: row.scoredCount,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    retiredAt: row.retiredAt?.toISOString() ?? null,
  };
}

/**
 * Administration of lead score definitions (docs/lead-scores.md): create, change, retire, and a dry run that shows
 * the top records a definition would score without storing anything. A definition's rules are checked as
 * a whole, every problem named by its path in the body. A change to what computes the score (its rules, or
 * enabling it) makes a new version and enqueues its full recompute in the same transaction. One live
 * definition per entity type is primary: making one primary makes the previous one not primary (the audit
 * entry names it).
 */
export function createLeadScoreAdminService(deps: { db: Kysely<DB>; clock: Clock; compute: LeadScoreComputeService; seniorities: readonly string[] }) {
  const { db, clock, compute } = deps;

  async function checkDefinition(communityId: number, given: RulesInput, entityType: LeadScoreEntity): Promise<ScoreRules> {
    const rules = checkRules(given, entityType, deps.seniorities);
    const missing = await admin.missingReferences(db, communityId, entityType, {
      sourceIds: rules.weights.flatMap((weight) => (weight.sourceId === null ? [] : [weight.sourceId])),
      tagIds: rules.fit.flatMap((rule) => (rule.field === 'tag' ? [rule.tagId] : [])),
      customFieldIds: rules.fit.flatMap((rule) => (rule.field === 'customField' ? [rule.customFieldId] : [])),
    });
    const problems = [
      ...rules.weights.flatMap((weight, index) =>
        weight.sourceId !== null && missing.sourceIds.includes(weight.sourceId)
          ? [`"weights.${index}.sourceId": no source ${weight.sourceId} in this community`]
          : [],
      ),
      ...rules.fit.flatMap((rule, index) => {
        if (rule.field === 'tag' && missing.tagIds.includes(rule.tagId)) return [`"fit.${index}.tagId": no live tag ${formatId('tag', rule.tagId)}`];
        if (rule.field === 'customField' && missing.customFieldIds.includes(rule.customFieldId)) {
          return [`"fit.${index}.customFieldId": no live ${entityType} custom field ${formatId('custom_field', rule.customFieldId)}`];
        }
        return [];
      }),
    ];
    if (problems.length) throw new HearthError('invalid_lead_score', problems.join('; '));
    return rules;
  }

  async function definitionOf(communityId: number, id: number, executor: Kysely<DB> = db): Promise<AdminLeadScoreRow> {
    return found(id, await admin.adminDefinition(executor, communityId, id));
  }

  function found(id: number, row: AdminLeadScoreRow | undefined): AdminLeadScoreRow {
    if (!row) throw notFound('lead_score_not_found', `lead score ${formatId('lead_score', id)} not found`);
    return row;
  }

  /** The live definition, locked until the transaction ends. */
  async function liveDefinitionOf(trx: Transaction<DB>, communityId: number, id: number): Promise<AdminLeadScoreRow> {
    return live(id, found(id, await admin.lockedDefinition(trx, communityId, id)));
  }

  function live(id: number, row: AdminLeadScoreRow): AdminLeadScoreRow {
    if (row.retiredAt) throw notFound('lead_score_not_found', `lead score ${formatId('lead_score', id)} was retired`);
    return row;
  }

  const get = async (communityId: number, id: number) => present(await definitionOf(communityId, id), await compute.pendingRecompute(communityId, id));

  const blank = (name: string) => {
    if (!name) throw new HearthError('invalid_lead_score', '"name" must not be blank');
    return name;
  };

  return {
    async list(communityId: number, includeRetired: boolean) {
      const rows = await admin.adminDefinitions(db, communityId, includeRetired);
      return Promise.all(rows.map(async (row) => present(row, await compute.pendingRecompute(communityId, row.id))));
    },

    get,

    /** POST /api/v2/admin/lead-scores. */
    async create(writer: Writer, given: NewLeadScore) {
      const fields: DefinitionFields = {
        name: blank(given.name.trim()),
        description: given.description ?? null,
        entityType: given.entityType,
        enabled: given.enabled ?? true,
        isPrimaryScore: given.isPrimaryScore ?? false,
        outputType: given.outputType ?? 'percentile',
        rules: await checkDefinition(writer.communityId, given, given.entityType),
      };
      const id = await db.transaction().execute(async (trx) => {
        const demoted = fields.isPrimaryScore ? await admin.demotePrimary(trx, writer.communityId, fields.entityType, null) : [];
        const id = await admin.insertDefinition(trx, writer.communityId, fields, clock.now());
        const jobId = fields.enabled ? await compute.enqueueRecompute(trx, writer.communityId, id, 1) : null;
        await auditTx.recordWrite(trx, writer, {
          operation: 'lead_score.create',
          entityIds: [formatId('lead_score', id), ...demoted.map((other) => formatId('lead_score', other))],
          detail: { name: fields.name, entityType: fields.entityType, jobId, demotedPrimary: demoted.map((other) => formatId('lead_score', other)) },
        });
        return id;
      });
      return get(writer.communityId, id);
    },

    /** PATCH /api/v2/admin/lead-scores/{id}: what is given changes; each rule member given replaces the stored one whole. */
    async update(writer: Writer, id: number, changes: LeadScoreChanges) {
      const before = live(id, await definitionOf(writer.communityId, id));
      const changesRules = RULE_MEMBERS.some((member) => changes[member] !== undefined);
      let rules = before.rules;
      if (changesRules) {
        const merged: RulesInput = { ...(before.rules ? rulesInput(before.rules) : {}) };
        for (const member of RULE_MEMBERS) if (changes[member] !== undefined) Object.assign(merged, { [member]: changes[member] });
        rules = await checkDefinition(writer.communityId, merged, before.entityType as LeadScoreEntity);
      }
      await db.transaction().execute(async (trx) => {
        const row = await liveDefinitionOf(trx, writer.communityId, id);
        const fields: DefinitionFields = {
          name: changes.name === undefined ? row.name : blank(changes.name.trim()),
          description: changes.description === undefined ? row.description : changes.description,
          entityType: row.entityType as LeadScoreEntity,
          enabled: changes.enabled ?? row.enabled,
          isPrimaryScore: changes.isPrimaryScore ?? row.isPrimaryScore,
          outputType: changes.outputType ?? row.outputType,
          rules,
        };
        const newVersion = (changesRules && JSON.stringify(rules) !== JSON.stringify(row.rules)) || (fields.enabled && !row.enabled);
        const demoted = fields.isPrimaryScore && !row.isPrimaryScore ? await admin.demotePrimary(trx, writer.communityId, fields.entityType, id) : [];
        const version = await admin.updateDefinition(trx, writer.communityId, id, fields, newVersion, clock.now());
        const jobId = newVersion && fields.enabled && fields.rules ? await compute.enqueueRecompute(trx, writer.communityId, id, version) : null;
        await auditTx.recordWrite(trx, writer, {
          operation: 'lead_score.update',
          entityIds: [formatId('lead_score', id), ...demoted.map((other) => formatId('lead_score', other))],
          detail: { changed: Object.keys(changes).sort(), version, jobId, demotedPrimary: demoted.map((other) => formatId('lead_score', other)) },
        });
      });
      return get(writer.communityId, id);
    },

    /** DELETE /api/v2/admin/lead-scores/{id}: retired, its scores removed; a retired definition is gone for this route. */
    async retire(writer: Writer, id: number) {
      await db.transaction().execute(async (trx) => {
        await liveDefinitionOf(trx, writer.communityId, id);
        await admin.retireDefinition(trx, writer.communityId, id, clock.now());
        await auditTx.recordWrite(trx, writer, { operation: 'lead_score.retire', entityIds: [formatId('lead_score', id)] });
      });
      return get(writer.communityId, id);
    },

    /**
     * POST /api/v2/admin/lead-scores/dry-run: the top records a definition would score now, with their
     * percentiles among all it would score; nothing is stored. Recorded in the audit log (it reads the
     * whole community's data).
     */
    async dryRun(writer: Writer, given: RulesInput & { entityType: LeadScoreEntity }, limit: number) {
      const rules = await checkDefinition(writer.communityId, given, given.entityType);
      const rows = await compute.dryRun(writer.communityId, given.entityType, rules, limit);
      await auditTx.recordWrite(db, writer, { operation: 'lead_score.dry_run', entityIds: [], detail: { entityType: given.entityType, limit } });
      return {
        entityType: given.entityType,
        scored: rows[0]?.total ?? 0,
        nonZero: rows[0]?.nonZero ?? 0,
        top: rows.map((row) => ({
          id: formatId(given.entityType, row.entityId),
          name: row.name,
          score: row.score,
          percentile: row.percentile,
          keyFactors: row.keyFactors,
        })),
      };
    },

    /** The rules of a stored definition, as a dry run takes them (`hearth lead-score dry-run ls_N`). */
    async storedRules(communityId: number, id: number): Promise<RulesInput & { entityType: LeadScoreEntity }> {
      const row = await definitionOf(communityId, id);
      if (!row.rules) throw new HearthError('invalid_lead_score', `lead score ${formatId('lead_score', id)} is not computed by Hearth (it has no rules)`);
      return { ...rulesInput(row.rules), entityType: row.entityType as LeadScoreEntity };
    },
  };
}

export type LeadScoreAdminService = ReturnType<typeof createLeadScoreAdminService>;
