import os from 'node:os';

/**
 * Who writes, and for which community. Every write service takes one and records it in the audit log in
 * the same transaction as the write, so a write and its record are committed (or lost) together.
 */
export interface Writer {
  communityId: number;
  /**
   * Who, as the audit log shows it: `user:<login email>` (a token made for a console user), `token:<name>`
   * (a token of no user), `cli:<os user>@<host>`, or `job:<id>` (background work another write enqueued).
   */
  actor: string;
  /** The API token (`jti`) of the request, or `session:<id>` for the web console's; null for the CLI and for jobs. */
  tokenId: string | null;
}

/**
 * Who is calling: established once per request from the token, passed explicitly to every service. It is
 * the request's `Writer`: write services record its actor and token in the audit log.
 */
export interface RequestContext extends Writer {
  communityName: string;
  tokenId: string;
  scopes: string[];
  userId: number | null;
}

/** The actor of an API request, from its token's row. */
export function tokenActor(token: { name: string; userEmail: string | null }): string {
  return token.userEmail ? `user:${token.userEmail}` : `token:${token.name}`;
}

/** The person at the terminal. `os.userInfo()` throws for a uid without a passwd entry (some containers). */
export function cliActor(): string {
  let user: string;
  try {
    user = os.userInfo().username;
  } catch {
    user = process.env.USER ?? process.env.LOGNAME ?? `uid ${process.getuid?.() ?? 'unknown'}`;
  }
  return `cli:${user}@${os.hostname()}`;
}

export function cliWriter(communityId: number): Writer {
  return { communityId, actor: cliActor(), tokenId: null };
}

/** A background job writes as itself; the write that enqueued it is recorded with the job's ID. */
export function jobWriter(job: { id: number; communityId: number }): Writer {
  return { communityId: job.communityId, actor: `job:${job.id}`, tokenId: null };
}
