import type { FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { HearthError } from '../../core/errors.ts';
import { formatId, parseId } from '../../core/ids.ts';
import { component } from '../../http/components.ts';
import { Forbidden, Nullable, v2Definitions, v2Item } from '../../http/schemas.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import type { AppUserRow } from './app-user.repository.ts';
import { SESSION_COOKIE, SESSION_LIFETIME_SECONDS, sessionCookieOf, type AppUserService, type OpenedSession } from './app-user.service.ts';
import { MAX_PASSWORD_LENGTH } from './password.ts';
import { FREE_FAILURES, MAX_WAIT_MS } from './sign-in-brake.ts';

const Role = Type.Enum(['admin', 'member'], { description: 'admin: everything, tokens, users and sources included; member: reads and writes data.' });

const AppUser = component(
  'AppUser',
  Type.Object({
    id: Type.String({ description: 'u_N' }),
    name: Type.String(),
    loginEmail: Type.String(),
    role: Role,
    hasPassword: Type.Boolean({ description: 'Whether the user has set a password (else they sign in by a one-time link).' }),
    createdAt: Type.String({ format: 'date-time' }),
  }),
);

const Session = component(
  'ConsoleSession',
  Type.Object({
    user: AppUser,
    communityId: Type.String(),
    communityName: Type.String(),
    scopes: Type.Array(Type.String(), { description: "The scopes of the user's role: what the session may call." }),
    csrfToken: Type.String({ description: 'Send it as `X-CSRF-Token` with every POST, PATCH, PUT and DELETE made with the session cookie.' }),
    expiresAt: Nullable(Type.String({ format: 'date-time' })),
    passwordRequired: Type.Boolean({ description: 'The session was opened by a one-time link and the user has no password yet.' }),
    currentPasswordNeeded: Type.Boolean({
      description: 'Whether changing the password asks for the current one: not in a session opened by a one-time link until it has set one.',
    }),
  }),
);

const SignInLink = component(
  'SignInLink',
  Type.Object({
    url: Type.String({ description: 'Shown once; good for one sign-in within a day.' }),
    expiresAt: Type.String({ format: 'date-time' }),
  }),
);

const Password = Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH });

const SignInBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 320 }),
    password: Password,
    community: Type.Optional(Type.String({ description: 'com_N: needed only when the address signs in to several communities.' })),
  },
  { additionalProperties: false },
);

const LinkBody = Type.Object(
  {
    link: Type.String({ minLength: 1, maxLength: 2000, description: 'The sign-in link, or what follows its `#link=`.' }),
    replaceSession: Type.Optional(
      Type.Boolean({
        description:
          'Sent with the cookie of a live session: end it and sign in by the link. Without it, such a request is a 409 `signed_in` and the link stays unused.',
      }),
    ),
  },
  { additionalProperties: false },
);

const PasswordBody = Type.Object(
  {
    currentPassword: Type.Optional(Password),
    newPassword: Type.String({ maxLength: MAX_PASSWORD_LENGTH, description: 'At least 10 characters.' }),
  },
  { additionalProperties: false },
);

const NewUserBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    loginEmail: Type.String({ minLength: 3, maxLength: 320 }),
    role: Type.Optional(Role),
    password: Type.Optional(
      Type.String({ maxLength: MAX_PASSWORD_LENGTH, description: 'Optional: without one, the user signs in first by the answer’s one-time link.' }),
    ),
  },
  { additionalProperties: false },
);

const UserChanges = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), role: Type.Optional(Role) },
  { additionalProperties: false, minProperties: 1 },
);

const UserParams = Type.Object({ id: Type.String({ description: 'u_N' }) });

/** A user changed or removed, with what that did to their tokens (present only when it did something). */
const UserAnswer = Type.Object({
  success: Type.Literal(true),
  data: AppUser,
  warnings: Type.Optional(Type.Array(Type.String(), { description: 'The tokens made for the user that lost scopes or were revoked, one sentence each.' })),
});

function presentUser(user: AppUserRow) {
  return {
    id: formatId('app_user', user.id),
    name: user.name,
    loginEmail: user.loginEmail,
    role: user.role,
    hasPassword: user.hasPassword,
    createdAt: user.createdAt.toISOString(),
  };
}

/** The cookie's attributes: HttpOnly (no script reads it), SameSite=Lax, Secure when the console is served over https. */
function cookieHeader(publicUrl: string, value: string, maxAge: number) {
  const secure = publicUrl.startsWith('https:') ? '; Secure' : '';
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure}`;
}

/**
 * A sign-in must come from the console's own pages (or from no page: curl, tests). A form on another
 * site could otherwise sign a visitor in as the attacker (login CSRF).
 */
function checkOrigin(request: FastifyRequest, publicUrl: string) {
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== new URL(publicUrl).origin) {
    throw new HearthError('cross_origin', `a sign-in from ${origin} is refused: sign in on ${new URL(publicUrl).origin}`);
  }
}

export function appUserRoutes(app: HearthApp, services: { appUsers: AppUserService }, publicUrl: string) {
  const opened = (reply: FastifyReply, session: OpenedSession, via: 'password' | 'link') => {
    reply.header('Set-Cookie', cookieHeader(publicUrl, session.cookie, SESSION_LIFETIME_SECONDS));
    reply.header('Cache-Control', 'no-store');
    return reply.code(201).send({
      success: true as const,
      data: {
        user: presentUser(session.user),
        communityId: formatId('community', session.user.communityId),
        communityName: session.communityName,
        scopes: services.appUsers.scopesOf(session.user.role),
        csrfToken: session.csrfToken,
        expiresAt: session.expiresAt.toISOString(),
        passwordRequired: !session.user.hasPassword,
        currentPasswordNeeded: via === 'password' && session.user.hasPassword,
      },
    });
  };
  const sessionOf = (request: FastifyRequest) => {
    if (!request.consoleSession) throw new HearthError('session_required', 'this operation is made with the console’s session cookie, not a token');
    return request.consoleSession;
  };

  app.post(
    '/api/v2/session',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'signIn',
        tags: ['console'],
        summary: 'Sign in to the console with an email address and a password',
        description:
          `Answers 201 and sets the HttpOnly session cookie \`${SESSION_COOKIE}\` (a week). A wrong address or password is one 403 \`sign_in_failed\`. ` +
          `After ${FREE_FAILURES} failures with one email address, each further try must wait, twice as long after each failure (up to ${MAX_WAIT_MS / 60_000} minutes): ` +
          'until then it answers 429 with Retry-After, the right password too. A success ends the wait. ' +
          'When the process is checking as many passwords as it takes at once, 503 `busy` with Retry-After.',
        body: SignInBody,
        response: { 201: v2Item(Session), 403: Forbidden },
      },
    },
    async (request, reply) => {
      checkOrigin(request, publicUrl);
      return opened(reply, await services.appUsers.signIn(request.body), 'password');
    },
  );

  app.post(
    '/api/v2/session/link',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'signInWithLink',
        tags: ['console'],
        summary: 'Sign in to the console with a one-time link',
        description:
          'The first-run admin’s link (printed at start) or one an admin made. A link works once, within a day, and voids the user’s other links. A browser already signed in must confirm that the link replaces its session (`replaceSession`; else 409 `signed_in`).',
        body: LinkBody,
        response: { 201: v2Item(Session), 403: Forbidden },
      },
    },
    async (request, reply) => {
      checkOrigin(request, publicUrl);
      const current = sessionCookieOf(request.headers.cookie);
      return opened(reply, await services.appUsers.signInWithLink(request.body.link, { current, replace: request.body.replaceSession === true }), 'link');
    },
  );

  app.get(
    '/api/v2/session',
    {
      config: { auth: { all: [] } },
      schema: {
        operationId: 'getSession',
        tags: ['console'],
        summary: 'The signed-in console user, and the CSRF token of their session',
        response: { 200: v2Item(Session) },
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      const context = contextOf(request);
      const { user } = await services.appUsers.session(context);
      reply.header('Cache-Control', 'no-store');
      return {
        success: true as const,
        data: {
          user: presentUser(user),
          communityId: formatId('community', context.communityId),
          communityName: context.communityName,
          scopes: context.scopes,
          csrfToken: services.appUsers.csrfTokenOf(session.cookie),
          expiresAt: session.expiresAt.toISOString(),
          passwordRequired: !user.hasPassword,
          currentPasswordNeeded: session.via === 'password' && user.hasPassword,
        },
      };
    },
  );

  app.delete(
    '/api/v2/session',
    {
      config: { auth: { all: [] } },
      schema: {
        operationId: 'signOut',
        tags: ['console'],
        summary: 'Sign out: the session ends at once',
        response: { 200: v2Item(Type.Object({ signedOut: Type.Boolean() })) },
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      await services.appUsers.signOut(contextOf(request), session.cookie);
      reply.header('Set-Cookie', cookieHeader(publicUrl, '', 0));
      return { success: true as const, data: { signedOut: true } };
    },
  );

  app.put(
    '/api/v2/session/password',
    {
      config: { auth: { all: [] } },
      schema: {
        operationId: 'changePassword',
        tags: ['console'],
        summary: "Set the signed-in user's password",
        description:
          'Asks for the current password, unless the session was opened by a one-time link and has not set one yet (`currentPasswordNeeded`). Ends the user’s other sessions.',
        body: PasswordBody,
        response: { 200: v2Item(AppUser) },
      },
    },
    async (request) => {
      const session = sessionOf(request);
      const context = contextOf(request);
      await services.appUsers.changePassword(context, session, request.body);
      return { success: true as const, data: presentUser((await services.appUsers.session(context)).user) };
    },
  );

  const admin = { auth: { all: ['admin' as const] } };

  app.get(
    '/api/v2/admin/users',
    { config: admin, schema: { operationId: 'listUsers', tags: ['console'], summary: 'List console users', response: { 200: v2Definitions(AppUser) } } },
    async (request) => ({ success: true as const, data: (await services.appUsers.list(contextOf(request).communityId)).map(presentUser) }),
  );

  app.post(
    '/api/v2/admin/users',
    {
      config: admin,
      schema: {
        operationId: 'createUser',
        tags: ['console'],
        summary: 'Add a console user',
        description: 'Answers 201 with the user and a one-time sign-in link to hand them (shown once). Role: member by default.',
        body: NewUserBody,
        response: { 201: v2Item(Type.Object({ user: AppUser, signInLink: SignInLink })) },
      },
    },
    async (request, reply) => {
      const made = await services.appUsers.add(contextOf(request), { ...request.body, role: request.body.role ?? 'member' });
      return reply.code(201).send({
        success: true as const,
        data: { user: presentUser(made.user), signInLink: { url: made.signInLink.url, expiresAt: made.signInLink.expiresAt.toISOString() } },
      });
    },
  );

  app.patch(
    '/api/v2/admin/users/:id',
    {
      config: admin,
      schema: {
        operationId: 'updateUser',
        tags: ['console'],
        summary: 'Rename a console user or change their role',
        description:
          'A demotion to member takes from the tokens made for the user the scopes a member lacks (`admin`), and revokes a token left with none; `warnings` names each token it changed. The last admin cannot be demoted (409 `last_admin`).',
        params: UserParams,
        body: UserChanges,
        response: { 200: UserAnswer },
      },
    },
    async (request) => {
      const { user, warnings } = await services.appUsers.update(contextOf(request), parseId('app_user', request.params.id), request.body);
      return { success: true as const, data: presentUser(user), ...(warnings.length ? { warnings } : {}) };
    },
  );

  app.delete(
    '/api/v2/admin/users/:id',
    {
      config: admin,
      schema: {
        operationId: 'removeUser',
        tags: ['console'],
        summary: 'Remove a console user',
        description:
          'Their sessions end at once, and the tokens made for them through the API are revoked (`warnings` names each). Tokens the operator made for them at the command line keep working, tied to no one. The last admin cannot be removed (409 `last_admin`).',
        params: UserParams,
        response: { 200: UserAnswer },
      },
    },
    async (request) => {
      const { user, warnings } = await services.appUsers.remove(contextOf(request), parseId('app_user', request.params.id));
      return { success: true as const, data: presentUser(user), ...(warnings.length ? { warnings } : {}) };
    },
  );

  app.post(
    '/api/v2/admin/users/:id/sign-in-link',
    {
      config: admin,
      schema: {
        operationId: 'createSignInLink',
        tags: ['console'],
        summary: 'A one-time sign-in link for a user (a password reset)',
        description: 'Signed in by it, the user sets a new password without the old one. It voids the user’s older links.',
        params: UserParams,
        response: { 201: v2Item(SignInLink) },
      },
    },
    async (request, reply) => {
      const link = await services.appUsers.issueLink(contextOf(request), parseId('app_user', request.params.id));
      return reply.code(201).send({ success: true as const, data: { url: link.url, expiresAt: link.expiresAt.toISOString() } });
    },
  );
}

export { sessionCookieOf };
