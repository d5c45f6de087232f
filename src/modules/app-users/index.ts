// The face of the app-users module (console users, sign-in, sessions): what the rest of the code uses of it.
export { appUserRoutes } from './app-user.v2.routes.ts';
export { createAppUserService, sessionCookieOf, type AppUserService, type SessionAuthentication } from './app-user.service.ts';
