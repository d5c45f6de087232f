import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';

/** Where a repository runs its statements: the database, or a transaction a service opened. */
export type Executor = Kysely<DB> | Transaction<DB>;
