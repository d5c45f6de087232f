import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

/**
 * The key of an address's row: made by the database from the address as typed, with the `lower` that the
 * lookup of users compares with (app-user.repository.ts), so that every spelling that signs in to one user
 * counts against one row.
 */
const keyOf = (email: string) => sql<string>`encode(sha256(convert_to(lower(${email}), 'UTF8')), 'hex')`;

export interface FailureCount {
  failures: number;
  lastFailureAt: Date;
}

export async function readFailures(db: Kysely<DB>, email: string): Promise<FailureCount | undefined> {
  return db.selectFrom('sign_in_failures').select(['failures', 'last_failure_at as lastFailureAt']).where('email_hash', '=', keyOf(email)).executeTakeFirst();
}

/**
 * Counts one more failure of an address, atomically across processes, and returns the count. A count whose
 * last failure is older than `forgetBefore` starts again at one.
 */
export async function addFailure(db: Kysely<DB>, email: string, now: Date, forgetBefore: Date): Promise<FailureCount> {
  return db
    .insertInto('sign_in_failures')
    .values({ email_hash: keyOf(email), failures: 1, last_failure_at: now })
    .onConflict((oc) =>
      oc.column('email_hash').doUpdateSet({
        failures: sql`case when sign_in_failures.last_failure_at < ${forgetBefore} then 1 else sign_in_failures.failures + 1 end`,
        // Processes' clocks may differ a little: the latest failure stands.
        last_failure_at: sql`greatest(sign_in_failures.last_failure_at, ${now})`,
      }),
    )
    .returning(['failures', 'last_failure_at as lastFailureAt'])
    .executeTakeFirstOrThrow();
}

export async function clearFailures(db: Kysely<DB>, email: string): Promise<void> {
  await db.deleteFrom('sign_in_failures').where('email_hash', '=', keyOf(email)).execute();
}

export async function forgetFailuresBefore(db: Kysely<DB>, before: Date): Promise<void> {
  await db.deleteFrom('sign_in_failures').where('last_failure_at', '<', before).execute();
}
