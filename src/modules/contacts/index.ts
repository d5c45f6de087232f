// The face of the contacts module: what the rest of the code uses of it. Its other files are private.
export { contactLookupRoutes } from './contact-lookup.core.routes.ts';
export { createContactLookupService } from './contact-lookup.service.ts';
export { CONTACT_FILTERS } from './contact.filters.ts';
export { type AddedActivities, type LockedContactState } from './contact-write.repository.ts';
export { type ContactFields, ERASED_COLUMNS, PAYLOAD_FIELDS } from './contact-columns.ts';
export { contactRoutes } from './contact.v2.routes.ts';
export { createContactService } from './contact.service.ts';
export { createContactMergeService } from './contact-merge.service.ts';
export { CONTACT_LIST_COLS } from './contact.schemas.ts';
export { contactNames } from './names.ts';
export { normalizePhone } from './phones.ts';
export { type ActivityDigest } from './contact-spark.repository.ts';
export { type SparkDraft } from './contact-spark-drafts.ts';
export { SPARK_DAYS, SPARK_PERIODS } from './contact-spark.ts';
export { contactTx, type ContactTxService } from './contact-tx.service.ts';
