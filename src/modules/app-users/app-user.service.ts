import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/schema.ts';
import { HearthError, invalidParameters } from '../../core/errors.ts';
import { formatId, parseCoreId } from '../../core/ids.ts';
import { ROLE_SCOPES, type Scope } from '../../core/scopes.ts';
import type { RequestContext, Writer } from '../../core/writer.ts';
import { auditTx } from '../audit/index.ts';
import { communityTx } from '../communities/index.ts';
import type { HeldTokenChange, TokenService } from '../tokens/index.ts';
import * as users from './app-user.repository.ts';
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, verifyCandidates, verifyPassword } from './password.ts';
import { createSignInBrake } from './sign-in-brake.ts';

export const SESSION_COOKIE = 'hearth_session';
/** A session lasts a week from sign-in; signing out, a password change or the user's removal ends it sooner. */
export const SESSION_LIFETIME_SECONDS = 7 * 24 * 3600;
/** A one-time sign-in link is good for a day. */
export const LINK_LIFETIME_SECONDS = 24 * 3600;

export type SessionAuthentication =
  { ok: true; context: RequestContext; id: number; via: 'password' | 'link'; expiresAt: Date } | { ok: false; reason: string };

export interface OpenedSession {
  /** The cookie's value: `<community>.<secret>`; only its hash is stored. */
  cookie: string;
  csrfToken: string;
  expiresAt: Date;
  user: users.AppUserRow;
  communityName: string;
}

const SECRET_FORM = /^([0-9]{1,16})\.([A-Za-z0-9_-]{43})$/;

function newSecret(communityId: number): string {
  return `${communityId}.${randomBytes(32).toString('base64url')}`;
}

function parseSecret(value: string): { communityId: number; hash: string } | null {
  const match = SECRET_FORM.exec(value);
  if (!match) return null;
  const communityId = Number(match[1]);
  if (!Number.isSafeInteger(communityId)) return null;
  return { communityId, hash: createHash('sha256').update(match[2]!).digest('base64url') };
}

const badSignIn = () => new HearthError('sign_in_failed', 'the email address or the password is wrong');

function checkPassword(password: string) {
  if (password.length < MIN_PASSWORD_LENGTH) throw invalidParameters(`the password must have at least ${MIN_PASSWORD_LENGTH} characters`);
  if (password.length > MAX_PASSWORD_LENGTH) throw invalidParameters(`the password must have at most ${MAX_PASSWORD_LENGTH} characters`);
}

function checkEmail(email: string): string {
  const trimmed = email.trim();
  if (!/^[^\s@]+@[^\s@]+$/.test(trimmed)) throw invalidParameters(`"${email}" is not an email address`);
  return trimmed;
}

/**
 * Console users, their sign-in (password or one-time link) and sessions. A session authenticates the same
 * API routes a token does (the request guard asks `authenticate` when a request has no Authorization
 * header), with the scopes of the user's role, so the console needs no API of its own.
 */
export function createAppUserService(deps: {
  db: Kysely<DB>;
  clock: Clock;
  secret: string;
  publicUrl: string;
  tokens: Pick<TokenService, 'holdToRole' | 'changed'>;
}) {
  const { db, clock } = deps;
  const brake = createSignInBrake({ db, clock });
  const csrfKey = createHmac('sha256', deps.secret).update('hearth console csrf').digest();

  /** The CSRF token of a session: derived from its secret, so nothing more is stored, and unguessable without it. */
  function csrfTokenOf(cookie: string): string {
    return createHmac('sha256', csrfKey).update(cookie).digest('base64url');
  }

  /** Opens a session, in the caller's transaction when given one. */
  async function open(user: users.AppUserRow, communityName: string, via: 'password' | 'link', within?: Kysely<DB>): Promise<OpenedSession> {
    const cookie = newSecret(user.communityId);
    const now = clock.now();
    const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_SECONDS * 1000);
    const transaction = <T>(work: (trx: Kysely<DB>) => Promise<T>) => (within ? work(within) : db.transaction().execute(work));
    await transaction(async (trx) => {
      const id = await users.insertSession(trx, { communityId: user.communityId, userId: user.id, secretHash: parseSecret(cookie)!.hash, via, expiresAt, now });
      await auditTx.recordWrite(
        trx,
        { communityId: user.communityId, actor: `user:${user.loginEmail}`, tokenId: `session:${id}` },
        {
          operation: 'session.create',
          entityIds: [formatId('app_user', user.id)],
          detail: { via },
        },
      );
    });
    return { cookie, csrfToken: csrfTokenOf(cookie), expiresAt, user, communityName };
  }

  async function communityName(communityId: number): Promise<string> {
    const row = await db.selectFrom('communities').select('name').where('id', '=', communityId).executeTakeFirst();
    return row?.name ?? '';
  }

  async function linkFor(writer: Writer | null, communityId: number, userId: number): Promise<{ url: string; expiresAt: Date }> {
    const secret = newSecret(communityId);
    const now = clock.now();
    const expiresAt = new Date(now.getTime() + LINK_LIFETIME_SECONDS * 1000);
    await db.transaction().execute(async (trx) => {
      // One live link per user: a new one voids those handed out before it, which may have gone astray.
      await users.lockUser(trx, communityId, userId);
      await users.voidLinks(trx, communityId, userId);
      await users.insertLink(trx, { communityId, userId, secretHash: parseSecret(secret)!.hash, expiresAt, now });
      if (writer) await auditTx.recordWrite(trx, writer, { operation: 'user.sign_in_link', entityIds: [formatId('app_user', userId)] });
    });
    // In the fragment: a browser sends none of it to any server, so no log or proxy keeps the link.
    return { url: `${deps.publicUrl}/sign-in#link=${secret}`, expiresAt };
  }

  async function userOf(communityId: number, id: number) {
    const user = await users.findUser(db, communityId, id);
    if (!user) throw new HearthError('user_not_found', `no user ${formatId('app_user', id)}`);
    return user;
  }

  /** The request context of a session cookie's value, or why there is none. */
  async function authenticate(cookie: string): Promise<SessionAuthentication> {
    const parsed = parseSecret(cookie);
    if (!parsed) return { ok: false, reason: 'the session cookie is malformed' };
    const session = await users.findSession(db, parsed.communityId, parsed.hash, clock.now());
    if (!session) return { ok: false, reason: 'the session has ended: sign in again' };
    return {
      ok: true,
      id: session.id,
      via: session.via as 'password' | 'link',
      expiresAt: session.expiresAt,
      context: {
        communityId: parsed.communityId,
        communityName: session.communityName,
        actor: `user:${session.loginEmail}`,
        tokenId: `session:${session.id}`,
        scopes: ROLE_SCOPES[session.role as users.Role],
        userId: session.userId,
      },
    };
  }

  /** An admin may not remove or demote the community's last admin: no one could manage it any more. */
  async function keepAnAdmin(trx: Kysely<DB>, communityId: number) {
    if ((await users.countAdmins(trx, communityId)) === 0) {
      throw new HearthError('last_admin', 'the community must keep at least one admin');
    }
  }

  return {
    csrfTokenOf,

    scopesOf(role: users.Role): Scope[] {
      return ROLE_SCOPES[role];
    },

    async signIn(input: { email: string; password: string; community?: string }): Promise<OpenedSession> {
      const communityId = input.community === undefined ? null : parseCoreId('community', input.community);
      const email = input.email.trim();
      await brake.check(email);
      const candidates = await users.usersByLoginEmail(db, email, communityId);
      // The brake is asked again when the turn comes: the address may have been braked while this one waited.
      const verdicts = await verifyCandidates(
        input.password,
        candidates.map((candidate) => candidate.passwordHash),
        () => brake.check(email),
      );
      const matches = candidates.filter((_, i) => verdicts[i]);
      if (matches.length === 0) {
        await brake.failed(email);
        throw badSignIn();
      }
      await brake.succeeded(email);
      if (matches.length > 1) {
        throw new HearthError('community_required', 'this address signs in to several communities: name one (community: "com_N")');
      }
      const user = (await users.findUser(db, matches[0]!.communityId, matches[0]!.id))!;
      return open(user, await communityName(user.communityId), 'password');
    },

    /**
     * Signs in by a one-time link. A browser already signed in (`current`, its session cookie) is not
     * switched to the link's user unless `replace` says it should: a link sent by someone else would
     * otherwise sign its victim in to the sender's account without a word (login CSRF). Refused so, the
     * link stays unused. Replaced, the old session ends. Using a link voids the user's other links.
     */
    async signInWithLink(link: string, options: { current?: string | null; replace?: boolean } = {}): Promise<OpenedSession> {
      const secret = link.includes('#link=') ? link.slice(link.indexOf('#link=') + 6) : link;
      const parsed = parseSecret(secret.trim());
      const refused = () => new HearthError('sign_in_failed', 'this sign-in link is unknown, used or expired: ask an admin for a new one');
      if (!parsed) throw refused();
      const current = options.current ? await authenticate(options.current) : null;
      if (current?.ok && !options.replace) {
        const who = current.context.actor.replace(/^user:/, '');
        throw new HearthError(
          'signed_in',
          `this browser is signed in as ${who} (${current.context.communityName}): confirm to sign out and sign in by the link instead (replaceSession: true); the link has not been used`,
        );
      }
      const name = await communityName(parsed.communityId);
      return db.transaction().execute(async (trx) => {
        const userId = await users.linkUser(trx, parsed.communityId, parsed.hash);
        if (userId === undefined || !(await users.lockUser(trx, parsed.communityId, userId))) throw refused();
        const used = await users.useLink(trx, parsed.communityId, parsed.hash, clock.now());
        if (!used) throw refused();
        await users.voidLinks(trx, parsed.communityId, userId);
        if (current?.ok) {
          const old = parseSecret(options.current!)!;
          const ended = await users.deleteSession(trx, old.communityId, old.hash);
          if (ended)
            await auditTx.recordWrite(trx, current.context, {
              operation: 'session.delete',
              entityIds: [formatId('app_user', current.context.userId!)],
              detail: { replacedBy: 'link' },
            });
        }
        const user = (await users.findUser(trx, parsed.communityId, userId))!;
        return open(user, name, 'link', trx);
      });
    },

    authenticate,

    /** Whether `given` is the CSRF token of the session `cookie`, compared in constant time. */
    csrfMatches(cookie: string, given: string | undefined): boolean {
      if (!given) return false;
      const expected = Buffer.from(csrfTokenOf(cookie));
      const actual = Buffer.from(given);
      return expected.length === actual.length && timingSafeEqual(expected, actual);
    },

    async session(context: RequestContext) {
      const user = await userOf(context.communityId, context.userId!);
      return { user, communityName: context.communityName };
    },

    async signOut(context: RequestContext, cookie: string) {
      const parsed = parseSecret(cookie);
      if (!parsed) return;
      await db.transaction().execute(async (trx) => {
        const ended = await users.deleteSession(trx, parsed.communityId, parsed.hash);
        if (ended) await auditTx.recordWrite(trx, context, { operation: 'session.delete', entityIds: [formatId('app_user', context.userId!)] });
      });
    },

    /**
     * Sets the signed-in user's password. The current one is asked for, unless the session was opened by a
     * one-time link (a first sign-in, a reset) and has not set one yet: the link stood for the current
     * password once. Every other session of the user ends.
     */
    async changePassword(context: RequestContext, session: { id: number; via: 'password' | 'link' }, input: { currentPassword?: string; newPassword: string }) {
      checkPassword(input.newPassword);
      const user = await userOf(context.communityId, context.userId!);
      if (session.via === 'password' && user.passwordHash) {
        if (!input.currentPassword || !(await verifyPassword(input.currentPassword, user.passwordHash))) {
          throw new HearthError('wrong_password', 'the current password is wrong');
        }
      }
      const hash = await hashPassword(input.newPassword);
      await db.transaction().execute(async (trx) => {
        await users.setPassword(trx, context.communityId, user.id, hash, clock.now());
        await users.deleteUserSessions(trx, context.communityId, user.id, session.id, clock.now());
        // Whoever holds this session now knows the password it set: changing it again asks for it.
        if (session.via === 'link' && !(await users.markSessionPasswordKnown(trx, context.communityId, session.id))) {
          throw new HearthError('wrong_password', 'the current password is wrong');
        }
        await auditTx.recordWrite(trx, context, { operation: 'user.password', entityIds: [formatId('app_user', user.id)] });
      });
    },

    list(communityId: number) {
      return users.listUsers(db, communityId);
    },

    /** The user of a community signing in with this address (the CLI names users by address). */
    async byEmail(communityId: number, email: string) {
      const [row] = await users.usersByLoginEmail(db, email.trim(), communityId);
      if (!row) throw new HearthError('user_not_found', `no user signs in with ${email.trim()}`);
      return userOf(communityId, row.id);
    },

    /** A new user; without a password, the answer's one-time link is how they first sign in. */
    async add(writer: Writer, input: { name: string; loginEmail: string; role: users.Role; password?: string }) {
      const loginEmail = checkEmail(input.loginEmail);
      const name = input.name.trim();
      if (!name) throw invalidParameters('a user needs a name');
      if (input.password !== undefined) checkPassword(input.password);
      const hash = input.password === undefined ? null : await hashPassword(input.password);
      const id = await db.transaction().execute(async (trx) => {
        if ((await users.usersByLoginEmail(trx, loginEmail, writer.communityId)).length) {
          throw new HearthError('user_exists', `a user signs in with ${loginEmail} already`);
        }
        const row = await trx
          .insertInto('app_users')
          .values({
            community_id: writer.communityId,
            name,
            login_email: loginEmail,
            role: input.role,
            password_hash: hash,
            password_changed_at: hash ? clock.now() : null,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        await communityTx.linkAppUserContact(trx, { communityId: writer.communityId, id: row.id, name, loginEmail }, clock.now());
        await auditTx.recordWrite(trx, writer, {
          operation: 'user.create',
          entityIds: [formatId('app_user', row.id)],
          detail: { loginEmail, role: input.role },
        });
        return row.id;
      });
      const link = await linkFor(null, writer.communityId, id);
      return { user: await userOf(writer.communityId, id), signInLink: link };
    },

    /**
     * Renames a user or changes their role. A demotion takes from the tokens made for them (through the API)
     * the scopes the new role lacks, and revokes those left with none; `warnings` say which.
     */
    async update(writer: Writer, id: number, changes: { name?: string; role?: users.Role }) {
      const name = changes.name?.trim();
      if (changes.name !== undefined && !name) throw invalidParameters('a user needs a name');
      await userOf(writer.communityId, id);
      const held = await db.transaction().execute(async (trx) => {
        await users.updateUser(trx, writer.communityId, id, { ...(name ? { name } : {}), ...(changes.role ? { role: changes.role } : {}) });
        if (changes.role === 'member') await keepAnAdmin(trx, writer.communityId);
        const held = changes.role ? await deps.tokens.holdToRole(trx, writer, id, changes.role) : [];
        await auditTx.recordWrite(trx, writer, {
          operation: 'user.update',
          entityIds: [formatId('app_user', id)],
          detail: { ...(name ? { name } : {}), ...(changes.role ? { role: changes.role } : {}) },
        });
        return held;
      });
      if (held.length) deps.tokens.changed();
      return { user: await userOf(writer.communityId, id), warnings: tokenWarnings(held, changes.role ?? null) };
    },

    /** Removes a user: their sessions end at once, and the tokens made for them through the API are revoked. */
    async remove(writer: Writer, id: number) {
      const user = await userOf(writer.communityId, id);
      const held = await db.transaction().execute(async (trx) => {
        const held = await deps.tokens.holdToRole(trx, writer, id, null);
        await users.deleteUser(trx, writer.communityId, id);
        await keepAnAdmin(trx, writer.communityId);
        await auditTx.recordWrite(trx, writer, { operation: 'user.remove', entityIds: [formatId('app_user', id)], detail: { loginEmail: user.loginEmail } });
        return held;
      });
      if (held.length) deps.tokens.changed();
      return { user, warnings: tokenWarnings(held, null) };
    },

    /** A one-time sign-in link for a user (a reset: they then choose a new password). */
    async issueLink(writer: Writer, id: number) {
      await userOf(writer.communityId, id);
      return linkFor(writer, writer.communityId, id);
    },

    /** The first-run admin's link, printed at start (src/main.ts); made by no request, so recorded by none. */
    firstRunLink(communityId: number, userId: number) {
      return linkFor(null, communityId, userId);
    },
  };
}

export type AppUserService = ReturnType<typeof createAppUserService>;

/** What a removal or a new role did to the user's tokens, one sentence per token, for the answer. */
function tokenWarnings(changes: HeldTokenChange[], role: users.Role | null): string[] {
  return changes.map((change) => {
    const token = `the token "${change.name}" (${change.jti})`;
    if (role === null) return `${token} was revoked: its user was removed`;
    if (change.revoked) return `${token} was revoked: the role ${role} grants none of its scopes`;
    return `${token} lost the scope${change.dropped.length > 1 ? 's' : ''} ${change.dropped.join(', ')}, which the role ${role} does not grant`;
  });
}

/** The session cookie's value in a Cookie header, if any. */
export function sessionCookieOf(header: string | undefined): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim();
  }
  return null;
}
