// What other modules do with custom-fields inside their own work: each method takes the caller's executor (its
// transaction, or the database), or builds a statement for the caller's batch, so a caller composes it into
// its own transaction with no extra query or round trip. The repositories behind it stay private.
import { checkCustomFieldWrites } from './custom-field-writes.ts';
import { customFieldSort, customFieldValuesOf, existingFieldIds, filterableFields, findDefinitions, writeValues } from './custom-field.repository.ts';

export const customFieldTx = { customFieldSort, customFieldValuesOf, existingFieldIds, filterableFields, findDefinitions, writeValues, checkCustomFieldWrites };
export type CustomFieldTxService = typeof customFieldTx;
