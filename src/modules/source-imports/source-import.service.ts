import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { DB, JsonValue } from '../../db/schema.ts';
import { retryingTransaction } from '../../db/transaction.ts';
import { conflict, notFound } from '../../core/errors.ts';
import { FILE_SOURCE_ROOT_SETTING, folderUnderRoot } from '../../core/file-source-root.ts';
import { formatId } from '../../core/ids.ts';
import type { JobContext, JobOf, JobQueue } from '../../jobs/job-queue.ts';
import { auditTx } from '../audit/index.ts';
import { jobWriter, type Writer } from '../../core/writer.ts';
import type { IngestionService } from '../ingestion/index.ts';
import type { OrganizationUpsertService } from '../organizations/index.ts';
import { augmentSource } from './augmentation.ts';
import { importFolder, type FolderImport } from './file-import.ts';
import { findImportSource, setLastImportAt } from './source-import.repository.ts';
import { lockRow } from '../../core/query-fragments.ts';

export interface SourceImportDeps {
  db: Kysely<DB>;
  clock: Clock;
  jobs: JobQueue;
  ingestion: IngestionService;
  organizationUpserts: OrganizationUpsertService;
  /** HEARTH_FILE_SOURCE_ROOT: where the folders of file sources made through the API must still lie. */
  fileSourceRoot?: string | null;
  /**
   * Sources another module syncs (a connector's): it enqueues their work and answers, or answers null for a
   * source that is not its own. Handed over by the root, so this module depends on none of them.
   */
  delegate?: (writer: Writer, sourceId: number) => Promise<{ jobId: number; created: boolean } | null>;
}

/** Why a file source made through the API is not imported: its folder is not (or no longer) under the root. */
const OUTSIDE_ROOT = `its folder is not a folder under ${FILE_SOURCE_ROOT_SETTING} (as the operator set it now)`;

/**
 * data-available: a source says it has new data. The call enqueues one durable job for the source (or
 * answers the one already waiting or running); the job imports a file source's new JSONL files through the
 * core pushes' service functions, then re-derives organizations, locations and topics for what the source
 * touched since its last run.
 */
export function createSourceImportService(deps: SourceImportDeps) {
  const { db, clock, jobs } = deps;

  /**
   * The folder to read for a file source: its own for one the operator made; for one made through the API,
   * the folder it resolves to now if that still lies under the root, else null. Checked at every use,
   * because a link under the root can be changed to lead out of it, and the root can be changed.
   */
  async function folderToRead(source: { path: string | null; confinedToRoot: boolean }): Promise<string | null> {
    if (!source.path) return null;
    if (!source.confinedToRoot) return source.path;
    return deps.fileSourceRoot ? folderUnderRoot(deps.fileSourceRoot, source.path) : null;
  }

  /** The import job: the source's new files, if it is a file source, then what it touched re-derived. */
  async function runImport(job: JobOf<'source.import'>, context: JobContext) {
    const { sourceId } = job.payload;
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
      const readable = await folderToRead(source);
      // Nothing is read, nor re-derived: the source stays as it was until its folder is allowed again.
      if (readable === null) return { sourceId, skipped: `the source was made through the API and ${OUTSIDE_ROOT}` };
      folder = await importFolder(deps, { ...run, jobId: job.id, writer, folder: readable });
    }
    // What is written from now on is the next run's: this run's augmentation may not see it.
    const startedAt = clock.now();
    const augmented = await augmentSource(deps, { ...run, since: source.lastImportAt });
    await db.transaction().execute(async (trx) => {
      await setLastImportAt(trx, communityId, sourceId, startedAt);
      await auditTx.recordWrite(trx, writer, { operation: 'source.augment', entityIds: [formatId('provider', sourceId)], detail: { augmented } });
    });
    return json({
      sourceId,
      kind: source.kind,
      since: source.lastImportAt?.toISOString() ?? null,
      lastImportAt: startedAt.toISOString(),
      ...(folder ? { files: folder.files, skippedFiles: folder.skippedFiles } : {}),
      augmented,
    });
  }

  return {
    /** Runs the jobs of kind `source.import` (the root hands it to the queue). */
    runImport,

    /**
     * Enqueues the source's import job, or answers the one already queued or running (a waiting retry is
     * brought forward). The source's row lock makes concurrent calls queue behind each other, so they
     * cannot both enqueue.
     */
    async notify(writer: Writer, sourceId: number): Promise<{ jobId: number; created: boolean }> {
      const delegated = await deps.delegate?.(writer, sourceId);
      if (delegated) return delegated;
      const source = await findImportSource(db, writer.communityId, sourceId);
      if (source?.kind === 'file' && source.confinedToRoot && (await folderToRead(source)) === null) {
        throw conflict(`source ${sourceId} was made through the API and ${OUTSIDE_ROOT}: it is not imported until it is`);
      }
      const job = await retryingTransaction(db, async (trx) => {
        // Calls about one source queue behind each other.
        if (!(await lockRow(trx, 'sources', writer.communityId, sourceId))) return null;
        const enqueued = await jobs.enqueueOnce(trx, { communityId: writer.communityId, kind: 'source.import', payload: { sourceId } });
        await auditTx.recordWrite(trx, writer, {
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
