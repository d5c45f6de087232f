import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/schema.ts';
import { retryingTransaction } from '../../db/transaction.ts';
import { HearthError, notFound } from '../../core/errors.ts';
import { formatId } from '../../core/ids.ts';
import { NO_COLS } from '../../core/list-query.ts';
import { auditTx } from '../audit/index.ts';
import type { Writer } from '../../core/writer.ts';
import { customFieldTx } from '../custom-fields/index.ts';
import { segmentTx } from '../segments/index.ts';
import { checkObjectFieldWrites, type ObjectFieldWrite } from './object-custom-fields.ts';
import * as objectWrites from './object-write.repository.ts';
import type { ObjectService } from './object-read.service.ts';

const objectNotFound = (id: number) => notFound('object_not_found', `object ${formatId('object', id)} not found`);

export function createObjectWriteService(deps: { db: Kysely<DB>; clock: Clock; objects: ObjectService }) {
  const { db } = deps;

  return {
    /**
     * PATCH /api/v2/objects/{id}: sets (or, with a null value, clears) custom field values of one object, all
     * or none. Answers the object as GET /api/v2/objects/{id} shows it.
     */
    async setCustomFields(writer: Writer, id: number, input: { customFields: ObjectFieldWrite[] }) {
      const { communityId } = writer;
      const now = deps.clock.now();
      await retryingTransaction(db, async (trx) => {
        const object = await objectWrites.touchObject(trx, communityId, id, now);
        if (!object) throw objectNotFound(id);
        const values = await checkObjectFieldWrites(trx, communityId, object.objectTypeId, input.customFields);
        await customFieldTx.writeValues(trx, { communityId, entityType: 'object', entityId: id, now }, values);
        await auditTx.recordWrite(trx, writer, {
          operation: 'object.set_custom_fields',
          entityIds: [formatId('object', id)],
          detail: { customFields: values.map((value) => formatId('custom_field', value.fieldId)) },
        });
      });
      return deps.objects.get(communityId, { id, cols: NO_COLS });
    },

    /**
     * POST /api/v2/objects/{id}/segments: adds the object to an object segment of its own type. Idempotent:
     * an object already in the segment stays as it was. Answers the object.
     */
    async addToSegment(writer: Writer, id: number, segmentId: number) {
      const { communityId } = writer;
      const rawId = formatId('object', id);
      const rawSegmentId = formatId('segment', segmentId);
      const now = deps.clock.now();
      await retryingTransaction(db, async (trx) => {
        const object = await objectWrites.lockObject(trx, communityId, id);
        if (!object) throw objectNotFound(id);
        const segment = await segmentTx.lockSegment(trx, communityId, segmentId);
        if (!segment) throw notFound('segment_not_found', `segment ${rawSegmentId} not found`);
        if (segment.entityType !== 'object' || segment.objectTypeId !== object.objectTypeId) {
          const what =
            segment.objectTypeId === null
              ? `${segment.entityType === 'organization' ? 'an' : 'a'} ${segment.entityType} segment`
              : `a segment of object type ${formatId('object_type', segment.objectTypeId)}`;
          throw new HearthError(
            'invalid_segment_id',
            `segment ${rawSegmentId} is ${what}; object ${rawId} can join only segments of its object type ${formatId('object_type', object.objectTypeId)}`,
            { invalidIds: [rawSegmentId] },
          );
        }
        await objectWrites.addObjectToSegment(trx, communityId, segment.id, id, now);
        await auditTx.recordWrite(trx, writer, { operation: 'object.add_to_segment', entityIds: [formatId('object', id), formatId('segment', segment.id)] });
      });
      return deps.objects.get(communityId, { id, cols: NO_COLS });
    },
  };
}

export type ObjectWriteService = ReturnType<typeof createObjectWriteService>;
