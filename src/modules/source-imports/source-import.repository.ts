import { sql } from 'kysely';
import type { Executor } from '../../core/executor.ts';

/** What the lines of a file done so far did. */
export interface ImportCounts {
  users: number;
  activities: number;
  organizations: number;
  /** Warnings the pushes gave (dropped values, ignored fields). */
  warnings: number;
  badLines: number;
}

export interface BadLine {
  line: number;
  reason: string;
}

export interface FileImport {
  sha256: string;
  fileName: string;
  size: number;
  status: 'importing' | 'imported';
  linesDone: number;
  counts: ImportCounts;
  badLines: BadLine[];
}

export const NO_COUNTS: ImportCounts = { users: 0, activities: 0, organizations: 0, warnings: 0, badLines: 0 };

/** The source the job works for, with the time of its last completed run. */
export async function findImportSource(db: Executor, communityId: number, sourceId: number) {
  return db
    .selectFrom('sources')
    .select(['id', 'name', 'kind', 'path', 'confined_to_root as confinedToRoot', 'last_import_at as lastImportAt'])
    .where('community_id', '=', communityId)
    .where('id', '=', sourceId)
    .executeTakeFirst();
}

export async function setLastImportAt(db: Executor, communityId: number, sourceId: number, at: Date): Promise<void> {
  await db.updateTable('sources').set({ last_import_at: at }).where('community_id', '=', communityId).where('id', '=', sourceId).execute();
}

/** The source's import records of these contents (by SHA-256). */
export async function findFileImports(db: Executor, communityId: number, sourceId: number, hashes: string[]): Promise<Map<string, FileImport>> {
  if (hashes.length === 0) return new Map();
  const rows = await db
    .selectFrom('source_imports')
    .select(['sha256', 'file_name as fileName', 'size', 'status', 'lines_done as linesDone', 'counts', 'bad_lines as badLines'])
    .where('community_id', '=', communityId)
    .where('source_id', '=', sourceId)
    .where(sql<boolean>`sha256 = any(${hashes}::text[])`)
    .execute();
  return new Map(
    rows.map((row) => [
      row.sha256,
      {
        ...row,
        status: row.status as FileImport['status'],
        counts: { ...NO_COUNTS, ...(row.counts as Partial<ImportCounts>) },
        badLines: row.badLines as unknown as BadLine[],
      },
    ]),
  );
}

/** Name, size and modification time of the source's imported files of these names: the quick check. */
export async function findImportedByName(db: Executor, communityId: number, sourceId: number, fileNames: string[]) {
  if (fileNames.length === 0) return [];
  return db
    .selectFrom('source_imports')
    .select(['file_name as fileName', 'size', 'modified_at as modifiedAt'])
    .where('community_id', '=', communityId)
    .where('source_id', '=', sourceId)
    .where(sql<boolean>`file_name = any(${fileNames}::text[])`)
    .where('status', '=', 'imported')
    .execute();
}

/** Starts the record of a file's import; an existing record (the same content) is left as it is. */
export async function startFileImport(
  db: Executor,
  record: { communityId: number; sourceId: number; sha256: string; fileName: string; size: number; modifiedAt: Date; jobId: number; now: Date },
): Promise<void> {
  await db
    .insertInto('source_imports')
    .values({
      community_id: record.communityId,
      source_id: record.sourceId,
      sha256: record.sha256,
      file_name: record.fileName,
      size: record.size,
      modified_at: record.modifiedAt,
      job_id: record.jobId,
      started_at: record.now,
    })
    .onConflict((conflict) => conflict.columns(['community_id', 'source_id', 'sha256']).doNothing())
    .execute();
}

/** Saves how far the import of a file got; `finishedAt` marks it imported. */
export async function saveFileImport(
  db: Executor,
  key: { communityId: number; sourceId: number; sha256: string },
  state: { linesDone: number; counts: ImportCounts; badLines: BadLine[]; jobId: number; finishedAt: Date | null },
): Promise<void> {
  await db
    .updateTable('source_imports')
    .set({
      lines_done: state.linesDone,
      counts: JSON.stringify(state.counts),
      bad_lines: JSON.stringify(state.badLines),
      job_id: state.jobId,
      ...(state.finishedAt ? { status: 'imported', finished_at: state.finishedAt } : {}),
    })
    .where('community_id', '=', key.communityId)
    .where('source_id', '=', key.sourceId)
    .where('sha256', '=', key.sha256)
    .execute();
}
