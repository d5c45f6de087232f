// The face of the privacy module: what the rest of the code uses of it. Its other files are private.
export { privacyRoutes } from './privacy.routes.ts';
export { createPrivacyService, type ProfileEraser } from './privacy.service.ts';
export { privacyTx, type PrivacyTxService } from './privacy-tx.service.ts';
