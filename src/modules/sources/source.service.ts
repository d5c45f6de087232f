import fs from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../../db/errors.ts';
import type { DB } from '../../db/schema.ts';
import type { CursorCodec } from '../../core/cursor.ts';
import { conflict, invalidParameters } from '../../core/errors.ts';
import { FILE_SOURCE_ROOT_SETTING, folderUnderRoot, pathUnderRoot } from '../../core/file-source-root.ts';
import { formatId } from '../../core/ids.ts';
import { auditTx } from '../audit/index.ts';
import type { Writer } from '../../core/writer.ts';
import * as sources from './source.repository.ts';
import type { PageRequest } from '../../core/list-query.ts';
import { pageWithCursor } from '../../core/paging.ts';

export interface NewSource {
  name: string;
  kind?: 'api' | 'file';
  /** For `file` sources: the folder whose JSONL files are imported. */
  path?: string | null;
  serviceName?: string;
}

export function createSourceService(deps: {
  db: Kysely<DB>;
  cursors: CursorCodec;
  /** HEARTH_FILE_SOURCE_ROOT: where API callers' file sources must lie; null: none may make one. */
  fileSourceRoot?: string | null;
}) {
  /**
   * The folder of a new file source. A writer with a token is an API caller, whose folder must lie under
   * the operator's root (links resolved); the CLI, which has none, is the operator and may name any folder.
   */
  async function folderOf(writer: Writer, given: string): Promise<{ folder: string; confined: boolean }> {
    if (writer.tokenId === null) {
      const folder = path.resolve(given);
      if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory()) throw invalidParameters(`path "${folder}" is not a folder`);
      return { folder, confined: false };
    }
    const root = deps.fileSourceRoot ?? null;
    if (root === null) {
      throw invalidParameters(
        `file sources are made with the CLI (hearth source create --kind file), unless the operator sets ${FILE_SOURCE_ROOT_SETTING}, the folder under which the API may name them`,
      );
    }
    // One answer for every refused path, so that it says nothing of what exists outside the root.
    if (!(await folderUnderRoot(root, given))) {
      throw invalidParameters(
        `path "${given}" is not a folder under ${FILE_SOURCE_ROOT_SETTING}, the folder the operator set for file sources made through the API`,
      );
    }
    return { folder: pathUnderRoot(root, given), confined: true };
  }

  return {
    async create(writer: Writer, input: NewSource) {
      const name = input.name.trim();
      if (!name) throw invalidParameters('a source needs a name');
      if (name.length > 200) throw invalidParameters('a source name is at most 200 characters');
      const kind = input.kind ?? 'api';
      let folder: string | null = null;
      let confined = false;
      if (kind === 'file') {
        if (!input.path) throw invalidParameters('a file source needs a path (the folder to import from)');
        ({ folder, confined } = await folderOf(writer, input.path));
      } else if (input.path) {
        throw invalidParameters('only a file source takes a path');
      }
      try {
        return await deps.db.transaction().execute(async (trx) => {
          const source = await sources.insertSource(trx, {
            communityId: writer.communityId,
            name,
            serviceName: input.serviceName ?? kind,
            kind,
            path: folder,
            confinedToRoot: confined,
          });
          await auditTx.recordWrite(trx, writer, {
            operation: 'source.create',
            entityIds: [formatId('provider', source.id)],
            detail: { name, kind, path: folder },
          });
          return source;
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw conflict(`a source named "${name}" already exists`);
        throw error;
      }
    },

    list(communityId: number) {
      return sources.listSources(deps.db, communityId);
    },

    /** The visible signal sources (providers), in ID order. */
    async pageProviders(communityId: number, request: PageRequest) {
      const binding = { community: communityId, list: 'providers', sort: 'id', direction: request.direction, filters: {} };
      const page = await pageWithCursor(deps.cursors, binding, request, (after) =>
        sources.pageVisibleSources(deps.db, communityId, { direction: request.direction, limit: request.limit, after }),
      );
      return {
        data: page.rows.map((row) => ({ id: formatId('provider', row.id), name: row.name, serviceName: row.serviceName })),
        meta: { nextCursor: page.nextCursor },
      };
    },
  };
}

export type SourceService = ReturnType<typeof createSourceService>;
