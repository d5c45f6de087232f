import { sql } from 'kysely';
import Type from 'typebox';
import type { HearthApp } from '../../http/types.ts';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

const Health = Type.Object({ status: Type.String() });

export function healthRoutes(app: HearthApp, services: { db: Kysely<DB> }) {
  app.get(
    '/healthz',
    {
      config: { auth: 'public', probe: true },
      schema: { operationId: 'getHealth', tags: ['health'], summary: 'The process is up', response: { 200: Health } },
    },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      config: { auth: 'public', probe: true },
      schema: { operationId: 'getReadiness', tags: ['health'], summary: 'The database answers', response: { 200: Health, 503: Health } },
    },
    async (_request, reply) => {
      try {
        await sql`select 1`.execute(services.db);
        return { status: 'ready' };
      } catch {
        return reply.code(503).send({ status: 'database unreachable' });
      }
    },
  );
}
