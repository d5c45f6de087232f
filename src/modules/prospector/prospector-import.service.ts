import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import { HearthError, invalidParameters } from '../../core/errors.ts';
import type { Executor } from '../../core/executor.ts';
import type { Writer } from '../../core/writer.ts';
import type { DB } from '../../db/schema.ts';
import { auditTx } from '../audit/index.ts';
import { industryTx } from '../industries/index.ts';
import { techProductTx } from '../tech-products/index.ts';
import { advanceCheckpoint, deleteCheckpoint, findCheckpoint, type CheckpointRow, type ImportKind } from './prospector-checkpoint.repository.ts';
import { companyIdsByDomains, upsertCompanies, type CompanyValues } from './prospector-company.repository.ts';
import { upsertContacts, type ContactValues } from './prospector-contact.repository.ts';
import { MAX_RECORDS_PER_IMPORT, readCompany, readContact, type ReadCompany, type ReadContact, type Read } from './prospector-records.ts';

export type { CheckpointRow, ImportKind };

/**
 * An import's body: a parsed JSON array, JSON Lines text (`content-type: application/x-ndjson`), or records
 * already named by where they are (`hearth prospector import` names them by their line of the file).
 */
export type ImportBody = { format: 'json'; value: unknown } | { format: 'jsonl'; text: string } | { format: 'records'; entries: NamedRecord[] };

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
    super('invalid_parameters', faults.map((fault) => `${fault.at}: ${fault.message}`).join('; '));
  }
}

/** A record of the body, where it was, and (for a line of text) why it could not be read as a record, if it could not. */
export interface NamedRecord {
  at: string;
  value: unknown;
  unreadable?: string;
}

/**
 * A file import's chunk: where the file's next chunk starts once this one commits. Saved in the chunk's
 * transaction (prospector-checkpoint.repository.ts).
 */
export interface ChunkCheckpoint {
  fileKey: string;
  kind: ImportKind;
  path: string;
  byteOffset: number;
  line: number;
}

const WHOLE_BODY = 'the body must be a JSON array of records, or JSON Lines (one record per line) with content-type application/x-ndjson';

/** The records of the body, each with where it is; a body that is no list of records at all is a 400. */
export function entriesOf(body: ImportBody): NamedRecord[] {
  let entries: NamedRecord[];
  if (body.format === 'records') {
    entries = body.entries;
  } else if (body.format === 'json') {
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
  if (entries.length > MAX_RECORDS_PER_IMPORT)
    throw invalidParameters(`at most ${MAX_RECORDS_PER_IMPORT.toLocaleString('en')} records per request; split the import`);
  return entries;
}

/** Every record read on its own; the faults of all of them, and what the good ones hold. */
function readAll<T>(entries: NamedRecord[], read: (value: unknown) => Read<T>) {
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

/**
 * A key given twice in one request is a fault of the later record, naming the first. `first` carries the
 * keys seen over several calls (the chunks of one file).
 */
function duplicates<T>(records: { at: string; value: T }[], keyOf: (value: T) => string, what: string, first = new Map<string, string>()): ImportFault[] {
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
function byPosition(faults: ImportFault[], entries: NamedRecord[]): ImportFault[] {
  const order = new Map(entries.map((entry, index) => [entry.at, index]));
  return faults
    .map((fault, index) => ({ fault, index }))
    .sort((a, b) => order.get(a.fault.at)! - order.get(b.fault.at)! || a.index - b.index)
    .map(({ fault }) => fault);
}

const companyKey = (company: ReadCompany) => company.primary_domain;
const contactKey = (contact: ReadContact) => contact.linkedin_handle;

/**
 * Companies as the import writes them, with every fault of every record: the checks of each record alone,
 * keys given twice, then what needs the database (the catalog's technologies, NAICS codes).
 */
async function prepareCompanies(executor: Executor, entries: NamedRecord[], seenKeys?: Map<string, string>) {
  const { faults, records } = readAll(entries, readCompany);
  faults.push(...duplicates(records, companyKey, 'domain', seenKeys));
  const names = [...new Set(records.flatMap((record) => record.value.technologies))];
  const spellings = await techProductTx.catalogSpellings(executor, names);
  const codes = await industryTx.existingIndustryCodes(executor, [
    ...new Set(records.flatMap((record) => (record.value.industry_code === null ? [] : [record.value.industry_code]))),
  ]);
  const companies: CompanyValues[] = [];
  for (const { at, value } of records) {
    const technologies: string[] = [];
    for (const [index, name] of value.technologies.entries()) {
      const product = spellings.get(name);
      if (product === undefined) {
        faults.push({
          at,
          message: `technologies[${index}] ${JSON.stringify(name)} is not in the technographic catalog (GET /api/v2/tech-stack-products; admins add products with POST /api/v2/admin/tech-products)`,
        });
      } else if (!technologies.includes(product)) {
        technologies.push(product);
      }
    }
    if (value.industry_code !== null && !codes.has(value.industry_code)) {
      faults.push({ at, message: `industry naics_${value.industry_code} is not a NAICS 2022 code (GET /api/v2/industries lists them)` });
    }
    companies.push({ ...value, technologies });
  }
  return { faults: byPosition(faults, entries), rows: companies };
}

/** Contacts as the import writes them, with every fault of every record; a contact's company must be there. */
async function prepareContacts(executor: Executor, entries: NamedRecord[], seenKeys?: Map<string, string>) {
  const { faults, records } = readAll(entries, readContact);
  faults.push(...duplicates(records, contactKey, 'linkedInHandle', seenKeys));
  const domains = [...new Set(records.flatMap((record) => (record.value.companyDomain === null ? [] : [record.value.companyDomain])))];
  const companyIds = await companyIdsByDomains(executor, domains);
  const contacts: ContactValues[] = [];
  for (const { at, value } of records) {
    const { companyDomain, ...columns } = value;
    const companyId = companyDomain === null ? null : (companyIds.get(companyDomain) ?? null);
    if (companyDomain !== null && companyId === null) {
      faults.push({ at, message: `companyDomain ${JSON.stringify(companyDomain)} is not the domain of a prospector company (import the company first)` });
    }
    contacts.push({ ...columns, company_id: companyId });
  }
  return { faults: byPosition(faults, entries), rows: contacts };
}

/** What a kind of import reads, writes and records. */
interface KindRules<T> {
  prepare(executor: Executor, entries: NamedRecord[], seenKeys?: Map<string, string>): Promise<{ faults: ImportFault[]; rows: T[] }>;
  upsert(trx: Executor, rows: T[]): Promise<{ added: number; changed: number }>;
  operation: string;
}

const KINDS: { companies: KindRules<CompanyValues>; contacts: KindRules<ContactValues> } = {
  companies: { prepare: prepareCompanies, upsert: upsertCompanies, operation: 'prospector_companies.import' },
  contacts: { prepare: prepareContacts, upsert: upsertContacts, operation: 'prospector_contacts.import' },
};

/**
 * POST /api/v2/admin/prospector/companies and /contacts: upserts the shared prospector data by a stable
 * key, all or nothing, in one transaction with its audit entry. Every fault of every record is found
 * before anything is written, and named in one 400. `hearth prospector import` sends a file through the
 * same calls, a chunk at a time, each chunk with the checkpoint it moves to (`checkpoint`).
 */
export function createProspectorImportService(deps: { db: Kysely<DB>; clock: Clock }) {
  async function importRecords<T>(rules: KindRules<T>, writer: Writer, body: ImportBody, checkpoint?: ChunkCheckpoint): Promise<ImportCounts> {
    const entries = entriesOf(body);
    const { prepare, upsert, operation } = rules;
    return deps.db.transaction().execute(async (trx) => {
      const { faults, rows } = await prepare(trx, entries);
      if (faults.length) throw new ProspectorImportRejected(faults);
      const { added, changed } = await upsert(trx, rows);
      const counts = { added, changed, unchanged: rows.length - added - changed };
      const detail = checkpoint ? { file: checkpoint.path, throughLine: checkpoint.line } : {};
      await auditTx.recordWrite(trx, writer, { operation, entityIds: [], detail: { records: rows.length, ...counts, ...detail } });
      if (checkpoint) await advanceCheckpoint(trx, checkpoint, { records: rows.length, ...counts }, deps.clock.now());
      return counts;
    });
  }

  return {
    /** Companies by primary domain; technologies resolved against the catalog, industries against NAICS. */
    importCompanies(writer: Writer, body: ImportBody, checkpoint?: ChunkCheckpoint): Promise<ImportCounts> {
      return importRecords(KINDS.companies, writer, body, checkpoint);
    },

    /** Contacts by LinkedIn handle; a contact's company is named by the domain of a company imported before. */
    importContacts(writer: Writer, body: ImportBody, checkpoint?: ChunkCheckpoint): Promise<ImportCounts> {
      return importRecords(KINDS.contacts, writer, body, checkpoint);
    },

    /**
     * The checks of an import without its writes, over a file's records a chunk at a time: each call
     * answers the faults of its chunk, and a key given twice anywhere in the file is a fault of the later
     * record (the checker remembers the keys it saw: their count, not the records, is what it holds).
     */
    checker(kind: ImportKind) {
      const seenKeys = new Map<string, string>();
      return {
        async check(entries: NamedRecord[]): Promise<ImportFault[]> {
          return (await KINDS[kind].prepare(deps.db, entries, seenKeys)).faults;
        },
      };
    },

    /** Where an interrupted file import got to, if one did. */
    checkpoint(fileKey: string): Promise<CheckpointRow | undefined> {
      return findCheckpoint(deps.db, fileKey);
    },

    /** Forgets a file import's checkpoint: it is done, or starts over (`--restart`). */
    clearCheckpoint(fileKey: string): Promise<void> {
      return deleteCheckpoint(deps.db, fileKey);
    },
  };
}

export type ProspectorImportService = ReturnType<typeof createProspectorImportService>;
