// The face of the privacy module: what the rest of the code may use. Everything else here is private.
export { privacyRoutes } from './privacy.routes.ts';
export { createPrivacyService } from './privacy.service.ts';
export { findSuppressed } from './suppression.repository.ts';
