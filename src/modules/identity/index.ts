// The face of the identity module: what the rest of the code uses of it. Its other files are private.
export {
  type Identity,
  identityHash,
  identityKey,
  isJunkValue,
  type Normalized,
  normalizeDiscord,
  normalizeEmail,
  normalizeHandle,
} from './identity-values.ts';
export { type PersonRef, type PushOrigin } from './identity.service.ts';
export { identityTx, type IdentityTxService } from './identity-tx.service.ts';
