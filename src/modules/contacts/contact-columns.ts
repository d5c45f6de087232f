import type { Contacts } from '../../db/schema.ts';
import type { ContactColumn } from './contact.schemas.ts';

/**
 * What a push may write in a column, and so the SQL type a batch's JSON value is cast to: `text`, `text or
 * null` (a field a push can clear, as a place that no longer resolves), `bigint`, or `jsonb text` (JSON
 * written as its text).
 */
type Written = 'text' | 'text or null' | 'bigint' | 'jsonb text';

/** What an erasure leaves in a column: null, an empty JSON list, the anonymized name, the erasure's time, or the value it had. */
type Erased = 'null' | 'empty list' | 'anonymized name' | 'erasure time' | 'kept';

interface ColumnRoles {
  /** Written by ingestion (a push, a batch): what it may write there. */
  written?: Written;
  /** What an erasure does to it. Every column says, so that a new column cannot keep personal data by default. */
  erased: Erased;
  /** The field of the v2 contact that shows it, when contact reads select it (the name the read gives the column). */
  read?: string;
  /** The v2 field it feeds, when webhook event payloads carry it (several columns can feed one field). */
  payload?: ContactColumn;
  /** A change to it makes a `contact.updated` webhook event (the condition of the `webhook_event_contact_updated` trigger compares these). */
  watched?: true;
}

/**
 * The contacts table, one entry per column with what each is to the code that writes, reads, erases and
 * reports contacts. This is the one place a new contact column is declared: the table's type comes from
 * the migrations (src/db/schema.ts), so a column the migrations add and this leaves out does not compile.
 * docs/architecture.md ("Adding a contact field") says what reads it.
 */
export const CONTACT_COLUMN_ROLES = {
  community_id: { erased: 'kept' },
  id: { erased: 'kept', read: 'id' },
  name: { written: 'text', erased: 'anonymized name', read: 'name', watched: true },
  full_name: { written: 'text', erased: 'null', read: 'fullName', payload: 'fullName', watched: true },
  username: { written: 'text', erased: 'null', watched: true },
  avatar_url: { written: 'text', erased: 'null', read: 'avatarUrl', payload: 'avatarUrl', watched: true },
  bio: { written: 'text', erased: 'null', watched: true },
  primary_email: { written: 'text', erased: 'null', read: 'primaryEmail', payload: 'primaryEmail', watched: true },
  title: { written: 'text', erased: 'null', read: 'title', payload: 'title', watched: true },
  role: { written: 'text', erased: 'null', watched: true },
  company_name: { written: 'text', erased: 'null', read: 'companyName', payload: 'companyName', watched: true },
  company_website: { written: 'text', erased: 'null', read: 'companyWebsite', payload: 'companyWebsite', watched: true },
  organization_id: { written: 'bigint', erased: 'null', watched: true },
  city: { written: 'text or null', erased: 'null', read: 'city', payload: 'location', watched: true },
  region: { written: 'text or null', erased: 'null', read: 'region', payload: 'location', watched: true },
  country: { written: 'text or null', erased: 'null', read: 'country', payload: 'location', watched: true },
  country_code: { written: 'text or null', erased: 'null' },
  world_region: { written: 'text or null', erased: 'null' },
  raw_location: { written: 'text', erased: 'null' },
  phone_numbers: { written: 'jsonb text', erased: 'empty list', read: 'phoneNumbers', payload: 'phoneNumbers', watched: true },
  job_history: { erased: 'empty list', read: 'jobHistory', payload: 'jobHistory', watched: true },
  activate_message: { erased: 'null', read: 'activateMessage' },
  spark_summary: { erased: 'null', read: 'sparkSummary' },
  recent_spark_summaries: { erased: 'empty list', read: 'recentSparkSummaries' },
  first_activity_at: { erased: 'kept' },
  latest_activity_at: { erased: 'kept' },
  activity_count_all: { erased: 'kept', read: 'activityCountAll', payload: 'activityCountAll' },
  anonymized_at: { erased: 'erasure time', watched: true },
  created_at: { erased: 'kept' },
  updated_at: { erased: 'erasure time' },
  sparks_generated_at: { erased: 'null' },
  sparks_activity_count: { erased: 'null' },
  sparks_latest_activity_at: { erased: 'null' },
  sparks_input_hash: { erased: 'null' },
  // A console user's contact that no source knows (migration 0045): it says nothing of the person.
  staff: { erased: 'kept' },
} as const satisfies { [column in keyof Contacts]-?: ColumnRoles };

type Roles = typeof CONTACT_COLUMN_ROLES;
type Column = keyof Roles;
const ALL = Object.keys(CONTACT_COLUMN_ROLES) as Column[];
const having = <C extends Column>(test: (roles: ColumnRoles) => boolean) => ALL.filter((column) => test(CONTACT_COLUMN_ROLES[column])) as C[];

type WrittenColumn = { [C in Column]: Roles[C] extends { written: Written } ? C : never }[Column];
interface WrittenValue {
  text: string;
  'text or null': string | null;
  bigint: number;
  'jsonb text': string;
}

/** The contact fields a push can set. Undefined leaves a field as it is; a value replaces it. */
export type ContactFields = { [C in WrittenColumn]?: WrittenValue[Roles[C]['written']] };

/** The columns ingestion writes, with the SQL type each is cast to from a batch's JSON. */
export const WRITTEN_COLUMNS = new Map(
  having<WrittenColumn>((roles) => roles.written !== undefined).map((column) => {
    const written: Written = CONTACT_COLUMN_ROLES[column].written;
    return [column, written === 'bigint' ? 'bigint' : written === 'jsonb text' ? 'jsonb' : 'text'] as const;
  }),
);

/** Each column an erasure changes, with what it leaves there. */
export const ERASED_COLUMNS = new Map(
  ALL.flatMap((column) => {
    const erased: Erased = CONTACT_COLUMN_ROLES[column].erased;
    return erased === 'kept' ? [] : [[column, erased] as const];
  }),
);

type ReadColumn = { [C in Column]: Roles[C] extends { read: string } ? C : never }[Column];
type ReadSelection = { [C in ReadColumn]: `c.${C} as ${Roles[C]['read']}` }[ReadColumn];

/** What contact reads select of the table (alias `c`), each column under the name its v2 field has. */
export const READ_SELECTION: readonly ReadSelection[] = having<ReadColumn>((roles) => roles.read !== undefined).map(
  (column) => `c.${column} as ${CONTACT_COLUMN_ROLES[column].read}` as ReadSelection,
);

/** The v2 contact fields a webhook event's payload carries from the table. */
export const PAYLOAD_FIELDS: ReadonlySet<ContactColumn> = new Set(
  ALL.flatMap((column) => {
    const roles: ColumnRoles = CONTACT_COLUMN_ROLES[column];
    return roles.payload ? [roles.payload] : [];
  }),
);

/** The columns whose change is a `contact.updated` event. */
export const WATCHED_COLUMNS: readonly Column[] = having((roles) => roles.watched === true);
