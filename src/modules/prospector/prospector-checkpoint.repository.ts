import { sql } from 'kysely';
import type { Executor } from '../../core/executor.ts';

export type ImportKind = 'companies' | 'contacts';

/** Where a file import got to (migration 0025): the next chunk starts at `byteOffset`, after line `line`. */
export interface CheckpointRow {
  fileKey: string;
  kind: ImportKind;
  path: string;
  byteOffset: number;
  line: number;
  records: number;
  added: number;
  changed: number;
  unchanged: number;
  chunks: number;
  startedAt: Date;
  updatedAt: Date;
}

export async function findCheckpoint(db: Executor, fileKey: string): Promise<CheckpointRow | undefined> {
  return db
    .selectFrom('prospector_import_checkpoints')
    .select([
      'file_key as fileKey',
      sql<ImportKind>`kind`.as('kind'),
      'path',
      'byte_offset as byteOffset',
      'line',
      'records',
      'added',
      'changed',
      'unchanged',
      'chunks',
      'started_at as startedAt',
      'updated_at as updatedAt',
    ])
    .where('file_key', '=', fileKey)
    .executeTakeFirst();
}

/**
 * Moves the checkpoint past a chunk, adding the chunk's counts to those of the chunks before it. Run in the
 * chunk's transaction: the checkpoint never names records that did not commit, nor misses one that did.
 */
export async function advanceCheckpoint(
  db: Executor,
  at: { fileKey: string; kind: ImportKind; path: string; byteOffset: number; line: number },
  chunk: { records: number; added: number; changed: number; unchanged: number },
  now: Date,
): Promise<void> {
  await db
    .insertInto('prospector_import_checkpoints')
    .values({
      file_key: at.fileKey,
      kind: at.kind,
      path: at.path,
      byte_offset: at.byteOffset,
      line: at.line,
      ...chunk,
      chunks: 1,
      started_at: now,
      updated_at: now,
    })
    .onConflict((conflict) =>
      conflict.column('file_key').doUpdateSet((eb) => ({
        path: eb.ref('excluded.path'),
        byte_offset: eb.ref('excluded.byte_offset'),
        line: eb.ref('excluded.line'),
        records: sql`prospector_import_checkpoints.records + excluded.records`,
        added: sql`prospector_import_checkpoints.added + excluded.added`,
        changed: sql`prospector_import_checkpoints.changed + excluded.changed`,
        unchanged: sql`prospector_import_checkpoints.unchanged + excluded.unchanged`,
        chunks: sql`prospector_import_checkpoints.chunks + 1`,
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .execute();
}

export async function deleteCheckpoint(db: Executor, fileKey: string): Promise<void> {
  await db.deleteFrom('prospector_import_checkpoints').where('file_key', '=', fileKey).execute();
}
