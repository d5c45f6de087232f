// The face of the tokens module: what the rest of the code uses of it. Its other files are private.
export { tokenStatusRoutes } from './token-status.routes.ts';
export { tokenRoutes } from './token.v2.routes.ts';
export { createTokenService, MAX_TOKEN_LIFETIME_SECONDS, MIN_TOKEN_LIFETIME_SECONDS, type HeldTokenChange, type TokenService } from './token.service.ts';
export { tokenTx, type TokenTxService } from './token-tx.service.ts';
