// The face of the locations module: what the rest of the code uses of it. Its other files are private.
export { interpretLocation, type Place } from './gazetteer.ts';
export { locationFields } from './location.filters.ts';
export { locationRoutes } from './location.v2.routes.ts';
export { createLocationService } from './location.service.ts';
export { locationTx, type LocationTxService } from './location-tx.service.ts';
