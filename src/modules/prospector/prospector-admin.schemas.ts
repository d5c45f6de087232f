import Type from 'typebox';
import { component } from '../../http/components.ts';
import { v2Item } from '../../http/schemas.ts';
import { CompanyRecordSchema, ContactRecordSchema, MAX_RECORDS_PER_IMPORT } from './prospector-records.ts';

export const ProspectorCompanyRecord = component('ProspectorCompanyRecord', CompanyRecordSchema);
export const ProspectorContactRecord = component('ProspectorContactRecord', ContactRecordSchema);

/**
 * An import's body, in either form. The service checks it record by record (so that one 400 names every
 * fault), so these schemas document it rather than guard it.
 */
function importBody(record: typeof ProspectorCompanyRecord | typeof ProspectorContactRecord, what: string) {
  return {
    content: {
      'application/json': {
        schema: Type.Array(record, {
          minItems: 1,
          maxItems: MAX_RECORDS_PER_IMPORT,
          description: `1 to ${MAX_RECORDS_PER_IMPORT.toLocaleString('en')} ${what}.`,
        }),
      },
      'application/x-ndjson': {
        schema: Type.String({
          description: `JSON Lines: one ${what.replace(/s$/, '')} per line, 1 to ${MAX_RECORDS_PER_IMPORT.toLocaleString('en')}; blank lines are skipped.`,
        }),
      },
    },
  };
}

export const CompanyImportBody = importBody(ProspectorCompanyRecord, 'company records');
export const ContactImportBody = importBody(ProspectorContactRecord, 'contact records');

export const ImportResponse = v2Item(
  Type.Object({
    added: Type.Integer({ description: 'Records new to the data' }),
    changed: Type.Integer({ description: 'Records already there (by their key) of which some field changed' }),
    unchanged: Type.Integer({ description: 'Records already there exactly as given' }),
  }),
);
