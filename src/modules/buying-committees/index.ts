// The face of the buying committees module: what the rest of the code uses of it. Its other files are private.
export { buyingCommitteeRoutes } from './buying-committee.v2.routes.ts';
export { BuyingCommitteeBody } from './buying-committee.schemas.ts';
export { type BuyingCommitteeService, type Committee, createBuyingCommitteeService } from './buying-committee.service.ts';
export { DEPARTMENT_CLASSES, DEPARTMENT_KEYS, SENIORITY_CLASSES, SENIORITY_KEYS } from './title-rules.ts';
export { createTitleClassifier } from './title-classifier.ts';
