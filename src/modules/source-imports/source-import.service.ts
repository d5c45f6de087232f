import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { DB, JsonValue } from '../../db/schema.ts';
import { retryingTransaction } from '../../db/transaction.ts';
import { notFound } from '../../core/errors.ts';
import { formatId } from '../../core/ids.ts';
import type { JobQueue, JobRow } from '../../jobs/job-queue.ts';
import { recordWrite } from '../audit/index.ts';
import { jobWriter, type Writer } from '../../core/writer.ts';
import type { IngestionService } from '../ingestion/index.ts';
import type { OrganizationUpsertService } from '../organizations/index.ts';
import { augmentSource } from './augmentation.ts';
import { importFolder, type FolderImport } from './file-import.ts';
import { findImportSource, setLastImportAt } from './source-import.repository.ts';
import { lockRow } from '../../core/query-fragments.ts';

export const SOURCE_IMPORT_JOB = 'source.import';

interface SourceImportPayload {
  sourceId: number;
}

export interface SourceImportDeps {
  db: Kysely<DB>;
  clock: Clock;
  jobs: JobQueue;
  ingestion: IngestionService;
  organizationUpserts: OrganizationUpsertService;
}

/**
 * data-available: a source says it has new data. The call enqueues one durable job for the source (or
 * answers the one already waiting or running); the job imports a file source's new JSONL files through the
 * core pushes' service functions, then re-derives organizations, locations and topics for what the source
 * touched since its last run.
 */
export function createSourceImportService(deps: SourceImportDeps) {
  const { db, clock, jobs } = deps;

  jobs.register(SOURCE_IMPORT_JOB, async (job: JobRow, context) => {
    const { sourceId } = job.payload as unknown as SourceImportPayload;
    const { communityId } = job;
    const source = await findImportSource(db, communityId, sourceId);
    // Deleted since the call: nothing is left to import for it.
    if (!source) return { sourceId, skipped: 'the source no longer exists' };
    const run = { communityId, sourceId, progress: context.progress, signal: context.signal };
    // Each imported line is recorded by its push, as this job; the augmentation by one entry at the end.
    const writer = jobWriter(job);

    let folder: FolderImport | null = null;
    if (source.kind === 'file') {
      if (!source.path) throw new Error(`source ${sourceId} is a file source without a folder`);
      folder = await importFolder(deps, { ...run, jobId: job.id, writer, folder: source.path });
    }
    // What is written from now on is the next run's: this run's augmentation may not see it.
    const startedAt = clock.now();
    const augmented = await augmentSource(deps, { ...run, since: source.lastImportAt });
    await db.transaction().execute(async (trx) => {
      await setLastImportAt(trx, communityId, sourceId, startedAt);
      await recordWrite(trx, writer, { operation: 'source.augment', entityIds: [formatId('provider', sourceId)], detail: { augmented } });
    });
    return json({
      sourceId,
      kind: source.kind,
      since: source.lastImportAt?.toISOString() ?? null,
      lastImportAt: startedAt.toISOString(),
      ...(folder ? { files: folder.files, skippedFiles: folder.skippedFiles } : {}),
      augmented,
    });
  });

  return {
    /**
     * Enqueues the source's import job, or answers the one already queued or running (a waiting retry is
     * brought forward). The source's row lock makes concurrent calls queue behind each other, so they
     * cannot both enqueue.
     */
    async notify(writer: Writer, sourceId: number): Promise<{ jobId: number; created: boolean }> {
      const payload: SourceImportPayload = { sourceId };
      const job = await retryingTransaction(db, async (trx) => {
        // Calls about one source queue behind each other.
        if (!(await lockRow(trx, 'sources', writer.communityId, sourceId))) return null;
        const enqueued = await jobs.enqueueOnce(trx, { communityId: writer.communityId, kind: SOURCE_IMPORT_JOB, payload: { ...payload } });
        await recordWrite(trx, writer, {
          operation: 'source.data_available',
          entityIds: [formatId('provider', sourceId)],
          detail: { jobId: enqueued.id, created: enqueued.created },
        });
        return enqueued;
      });
      if (!job) throw notFound('source_not_found', `no source ${sourceId} in this community`);
      return { jobId: job.id, created: job.created };
    },
  };
}

export type SourceImportService = ReturnType<typeof createSourceImportService>;

/** Job results are stored as JSON; interfaces are not assignable to JsonValue, their JSON is. */
function json(value: object): JsonValue {
  return JSON.parse(JSON.stringify(value)) as JsonValue;
}
