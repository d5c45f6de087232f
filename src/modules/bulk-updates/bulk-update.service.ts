import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/schema.ts';
import { RetryTransaction, retryingTransaction } from '../../db/transaction.ts';
import { formatId } from '../../core/ids.ts';
import { auditTx } from '../audit/index.ts';
import { leadScoreTx } from '../lead-scores/index.ts';
import type { Writer } from '../../core/writer.ts';
import { segmentTx } from '../segments/index.ts';
import { bulkUpdateError, checkRequest, keysOf, parseRequest, type BulkUpdateInput, type Loaded, type ParsedRequest, type Plan } from './bulk-update-checks.ts';
import * as bulk from './bulk-update.repository.ts';
import { BULK_TARGETS, type BulkTarget, type BulkTargetName } from './bulk-update-targets.ts';

/**
 * Bulk updates of contacts, organizations and custom objects (docs/writing.md, Bulk updates): one engine, one
 * transaction per request. Everything the request names is read (and locked) first and every fault is
 * answered in one 400, before anything is written; then each kind of change is one batched statement for
 * all records. Every change is idempotent, so a request can be retried whole.
 */
export function createBulkUpdateService(deps: { db: Kysely<DB>; clock: Clock }) {
  async function load(trx: Transaction<DB>, target: BulkTarget, communityId: number, parsed: ParsedRequest): Promise<Loaded> {
    const keys = keysOf(parsed);
    let records: Map<number, number>;
    let objectTypes: Map<number, number | null>;
    if (target.entity === 'contact') {
      // A merged contact's ID stands for its survivor. A survivor merged away between the two reads (a
      // concurrent merge) is gone when it is locked: read again.
      records = await bulk.resolveContactKeys(trx, communityId, keys.records);
      objectTypes = await bulk.lockRecords(trx, communityId, 'contact', [...new Set(records.values())]);
      for (const id of records.values()) if (!objectTypes.has(id)) throw new RetryTransaction();
    } else {
      objectTypes = await bulk.lockRecords(trx, communityId, target.entity, keys.records);
      records = new Map([...objectTypes.keys()].map((id) => [id, id]));
    }
    return {
      records,
      objectTypes,
      segment: keys.segment === null ? undefined : await segmentTx.lockSegment(trx, communityId, keys.segment),
      tags: await bulk.lockTags(trx, communityId, keys.tags),
      fields: await bulk.findFields(trx, communityId, keys.fields),
    };
  }

  async function apply(trx: Transaction<DB>, target: BulkTarget, writer: Writer, plan: Plan) {
    const { communityId } = writer;
    const ids = plan.recordIds;
    if (plan.segmentId !== null) await bulk.addSegmentMemberships(trx, communityId, plan.segmentId, ids);
    if (target.entity !== 'object') {
      await bulk.addTagAssignments(trx, communityId, target.entity, ids, plan.addTagIds);
      await bulk.removeTagAssignments(trx, communityId, target.entity, ids, plan.removeTagIds);
    }
    await bulk.writeCustomFieldValues(trx, { communityId, entity: target.entity, now: deps.clock.now() }, ids, plan.values);
    // Tags and custom field values are what fit rules read: the records' lead scores are computed again.
    if (target.entity !== 'object' && (plan.addTagIds.length || plan.removeTagIds.length || plan.values.length)) {
      await leadScoreTx.markForScoring(
        trx,
        communityId,
        ids.map((id) => ({ entityType: target.entity as 'contact' | 'organization', entityId: id })),
      );
    }
    const tags = (list: number[]) => list.map((id) => formatId('tag', id));
    const segment = plan.segmentId === null ? null : formatId('segment', plan.segmentId);
    await auditTx.recordWrite(trx, writer, {
      operation: `${target.entity}s.bulk_update`,
      entityIds: [...ids.map((id) => formatId(target.idEntity, id)), ...(segment ? [segment] : []), ...tags(plan.addTagIds), ...tags(plan.removeTagIds)],
      detail: {
        segmentId: segment,
        tagsAdded: tags(plan.addTagIds),
        tagsRemoved: tags(plan.removeTagIds),
        customFields: plan.values.map((value) => formatId('custom_field', value.fieldId)),
      },
    });
  }

  return {
    /**
     * POST /api/v2/{contacts,organizations,objects}/bulk-update. Answers every record ID of the request as
     * given, once each; a merged contact's ID is answered as given, and its survivor is what is updated.
     */
    async update(writer: Writer, name: BulkTargetName, input: BulkUpdateInput): Promise<{ ids: string[] }> {
      const target = BULK_TARGETS[name];
      const parsed = parseRequest(target, input);
      await retryingTransaction(deps.db, async (trx) => {
        const { faults, plan } = checkRequest(target, parsed, await load(trx, target, writer.communityId, parsed));
        if (faults.length) throw bulkUpdateError(target, faults);
        await apply(trx, target, writer, plan);
      });
      return { ids: parsed.records.map((record) => record.given) };
    },
  };
}

export type BulkUpdateService = ReturnType<typeof createBulkUpdateService>;
