import type { Kysely } from 'kysely';
import { HearthError, invalidParameters } from '../../core/errors.ts';
import type { Writer } from '../../core/writer.ts';
import type { DB } from '../../db/schema.ts';
import { recordWrite } from '../audit/index.ts';
import { existingIndustryCodes } from '../industries/index.ts';
import { catalogSpellings } from '../tech-products/index.ts';
import { companyIdsByDomains, upsertCompanies, type CompanyValues } from './prospector-company.repository.ts';
import { upsertContacts, type ContactValues } from './prospector-contact.repository.ts';
import { MAX_RECORDS_PER_IMPORT, readCompany, readContact, type Read } from './prospector-records.ts';

/** An import's body: a parsed JSON array, or JSON Lines text (`content-type: application/x-ndjson`). */
export type ImportBody = { format: 'json'; value: unknown } | { format: 'jsonl'; text: string };

export interface ImportCounts {
  /** Records new to the data. */
  added: number;
  /** Records already there (by their key) of which some field changed. */
  changed: number;
  /** Records already there exactly as given. */
  unchanged: number;
}

/** One fault of an import: the record at fault (`[3]` in a JSON array, `line 4` in JSON Lines) and what is wrong. */
export interface ImportFault {
  at: string;
  message: string;
}

/** A refused import: one 400 naming every fault of every record; nothing was written. */
export class ProspectorImportRejected extends HearthError {
  constructor(readonly faults: ImportFault[]) {
    super('invalid', 'invalid_parameters', faults.map((fault) => `${fault.at}: ${fault.message}`).join('; '));
  }
}

/** A record of the body, where it was, and (for JSON Lines) whether its line was JSON at all. */
interface Entry {
  at: string;
  value: unknown;
  unreadable?: string;
}

const WHOLE_BODY = 'the body must be a JSON array of records, or JSON Lines (one record per line) with content-type application/x-ndjson';

/** The records of the body, each with where it is; a body that is no list of records at all is a 400. */
export function entriesOf(body: ImportBody): Entry[] {
  let entries: Entry[];
  if (body.format === 'json') {
    if (!Array.isArray(body.value)) throw invalidParameters(WHOLE_BODY);
    entries = body.value.map((value, index) => ({ at: `[${index}]`, value }));
  } else {
    entries = [];
    for (const [index, line] of body.text.split('\n').entries()) {
      if (line.trim() === '') continue;
      if (entries.length > MAX_RECORDS_PER_IMPORT) break;
      const at = `line ${index + 1}`;
      try {
        entries.push({ at, value: JSON.parse(line) as unknown });
      } catch (error) {
        entries.push({ at, value: null, unreadable: `not JSON (${(error as Error).message})` });
      }
    }
  }
  if (entries.length === 0) throw invalidParameters(`no records: ${WHOLE_BODY}`);
  if (entries.length > MAX_RECORDS_PER_IMPORT) throw invalidParameters(`at most ${MAX_RECORDS_PER_IMPORT.toLocaleString('en')} records per request; split the import`);
  return entries;
}

/** Every record read on its own; the faults of all of them, and what the good ones hold. */
function readAll<T>(entries: Entry[], read: (value: unknown) => Read<T>) {
  const faults: ImportFault[] = [];
  const records: { at: string; value: T }[] = [];
  for (const entry of entries) {
    if (entry.unreadable) {
      faults.push({ at: entry.at, message: entry.unreadable });
      continue;
    }
    const result = read(entry.value);
    if (result.ok) records.push({ at: entry.at, value: result.value });
    else for (const message of result.faults) faults.push({ at: entry.at, message });
  }
  return { faults, records };
}

/** A key given twice in one request is a fault of the later record, naming the first. */
function duplicates<T>(records: { at: string; value: T }[], keyOf: (value: T) => string, what: string): ImportFault[] {
  const first = new Map<string, string>();
  const faults: ImportFault[] = [];
  for (const record of records) {
    const key = keyOf(record.value);
    const earlier = first.get(key);
    if (earlier === undefined) first.set(key, record.at);
    else faults.push({ at: record.at, message: `${what} ${JSON.stringify(key)} is also that of ${earlier}` });
  }
  return faults;
}

/** Faults ordered as the records are, so a record's faults read together. */
function byPosition(faults: ImportFault[], entries: Entry[]): ImportFault[] {
  const order = new Map(entries.map((entry, index) => [entry.at, index]));
  return faults.map((fault, index) => ({ fault, index })).sort((a, b) => order.get(a.fault.at)! - order.get(b.fault.at)! || a.index - b.index).map(({ fault }) => fault);
}

/**
 * POST /api/v2/admin/prospector/companies and /contacts: upserts the shared prospector data by a stable
 * key, all or nothing, in one transaction with its audit entry. Every fault of every record is found
 * before anything is written, and named in one 400.
 */
export function createProspectorImportService(deps: { db: Kysely<DB> }) {
  return {
    /** Companies by primary domain; technologies resolved against the catalog, industries against NAICS. */
    async importCompanies(writer: Writer, body: ImportBody): Promise<ImportCounts> {
      const entries = entriesOf(body);
      const { faults, records } = readAll(entries, readCompany);
      faults.push(...duplicates(records, (company) => company.primary_domain, 'domain'));
      return deps.db.transaction().execute(async (trx) => {
        const names = [...new Set(records.flatMap((record) => record.value.technologies))];
        const spellings = await catalogSpellings(trx, names);
        const codes = await existingIndustryCodes(trx, [...new Set(records.flatMap((record) => (record.value.industry_code === null ? [] : [record.value.industry_code])))]);
        const companies: CompanyValues[] = [];
        for (const { at, value } of records) {
          const technologies: string[] = [];
          for (const [index, name] of value.technologies.entries()) {
            const product = spellings.get(name);
            if (product === undefined) {
              faults.push({ at, message: `technologies[${index}] ${JSON.stringify(name)} is not in the technographic catalog (GET /api/v2/tech-stack-products; admins add products with POST /api/v2/admin/tech-products)` });
            } else if (!technologies.includes(product)) {
              technologies.push(product);
            }
          }
          if (value.industry_code !== null && !codes.has(value.industry_code)) {
            faults.push({ at, message: `industry naics_${value.industry_code} is not a NAICS 2022 code (GET /api/v2/industries lists them)` });
          }
          companies.push({ ...value, technologies });
        }
        if (faults.length) throw new ProspectorImportRejected(byPosition(faults, entries));
        const { added, changed } = await upsertCompanies(trx, companies);
        const counts = { added, changed, unchanged: companies.length - added - changed };
        await recordWrite(trx, writer, { operation: 'prospector_companies.import', entityIds: [], detail: { records: companies.length, ...counts } });
        return counts;
      });
    },

    /** Contacts by LinkedIn handle; a contact's company is named by the domain of a company imported before. */
    async importContacts(writer: Writer, body: ImportBody): Promise<ImportCounts> {
      const entries = entriesOf(body);
      const { faults, records } = readAll(entries, readContact);
      faults.push(...duplicates(records, (contact) => contact.linkedin_handle, 'linkedInHandle'));
      return deps.db.transaction().execute(async (trx) => {
        const domains = [...new Set(records.flatMap((record) => (record.value.companyDomain === null ? [] : [record.value.companyDomain])))];
        const companyIds = await companyIdsByDomains(trx, domains);
        const contacts: ContactValues[] = [];
        for (const { at, value } of records) {
          const { companyDomain, ...columns } = value;
          const companyId = companyDomain === null ? null : (companyIds.get(companyDomain) ?? null);
          if (companyDomain !== null && companyId === null) {
            faults.push({ at, message: `companyDomain ${JSON.stringify(companyDomain)} is not the domain of a prospector company (import the company first)` });
          }
          contacts.push({ ...columns, company_id: companyId });
        }
        if (faults.length) throw new ProspectorImportRejected(byPosition(faults, entries));
        const { added, changed } = await upsertContacts(trx, contacts);
        const counts = { added, changed, unchanged: contacts.length - added - changed };
        await recordWrite(trx, writer, { operation: 'prospector_contacts.import', entityIds: [], detail: { records: contacts.length, ...counts } });
        return counts;
      });
    },
  };
}

export type ProspectorImportService = ReturnType<typeof createProspectorImportService>;
