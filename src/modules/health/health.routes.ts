import { sql } from 'kysely';
import Type from 'typebox';
import type { HearthApp } from '../../http/types.ts';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Readiness } from './readiness.ts';

const Health = Type.Object({ status: Type.String() });

export function healthRoutes(app: HearthApp, services: { db: Kysely<DB>; readiness: Readiness }) {
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
      schema: {
        operationId: 'getReadiness',
        tags: ['health'],
        summary: 'The database answers and the process is not shutting down',
        description:
          '503 `draining` from SIGTERM on, while the process still serves for its grace period (HEARTH_SHUTDOWN_GRACE), and `database unreachable` when the database does not answer.',
        response: { 200: Health, 503: Health },
      },
    },
    async (_request, reply) => {
      // Checked first and without the database: a load balancer must see the drain at once.
      if (services.readiness.draining) return reply.code(503).send({ status: 'draining' });
      try {
        await sql`select 1`.execute(services.db);
        return { status: 'ready' };
      } catch {
        return reply.code(503).send({ status: 'database unreachable' });
      }
    },
  );
}
