import Type from 'typebox';
import { colsDescription, META_COLS } from '../../http/cols.ts';
import { component } from '../../http/components.ts';
import { Nullable, PageMeta, v2Item, v2Page } from '../../http/schemas.ts';
import { DEPARTMENT_KEYS, SENIORITY_KEYS } from './title-rules.ts';

/** The most seniorities, and the most departments, a committee has. */
export const MAX_RANKS = 50;
/** How many engagement-ranked and how many recently touched candidates a cell holds (docs/behaviour.md, Limits). */
export const CANDIDATES_PER_GROUP = 5;

const keyList = (keys: readonly string[]) => keys.map((key) => `\`${key}\``).join(', ');

const rank = (what: 'seniority' | 'department', keys: readonly string[]) =>
  Type.Object({
    id: Type.Integer({
      description: `The ${what}’s ID in this committee: a positive integer, unique among its ${what === 'seniority' ? 'seniorities' : 'departments'}.`,
    }),
    key: Type.String({
      description: `Lowercase letters, digits and \`_\`, starting with a letter (at most 64), unique in the committee. A key of the title classifier (${keyList(keys)}) gets the people whose title it classifies so.`,
    }),
    name: Type.String({ description: 'For display; at most 200 characters.' }),
  });

export const BuyingCommitteeSeniority = component('BuyingCommitteeSeniority', rank('seniority', SENIORITY_KEYS));
export const BuyingCommitteeDepartment = component('BuyingCommitteeDepartment', rank('department', DEPARTMENT_KEYS));

export const BuyingCommittee = component(
  'BuyingCommittee',
  Type.Object(
    {
      seniorities: Type.Array(BuyingCommitteeSeniority, { description: 'The rows of the committee, in order.' }),
      departments: Type.Array(BuyingCommitteeDepartment, { description: 'The columns of the committee, in order.' }),
    },
    { description: 'A community’s buying committee: seniorities (rows) by departments (columns).' },
  ),
);

/**
 * The body of PUT /api/v2/admin/buying-committee and of `hearth buying-committee set FILE.json`. Only the
 * types are checked here; the service checks the values, so one 400 names every fault.
 */
export const BuyingCommitteeBody = Type.Object(
  {
    seniorities: Type.Array(Type.Object({ id: Type.Integer(), key: Type.String(), name: Type.String() }, { additionalProperties: false }), {
      maxItems: 1000,
      description: `1 to ${MAX_RANKS} seniorities, in the order of the committee’s rows. Seniority keys of the title classifier: ${keyList(SENIORITY_KEYS)}.`,
    }),
    departments: Type.Array(Type.Object({ id: Type.Integer(), key: Type.String(), name: Type.String() }, { additionalProperties: false }), {
      maxItems: 1000,
      description: `1 to ${MAX_RANKS} departments, in the order of the committee’s columns. Department keys of the title classifier: ${keyList(DEPARTMENT_KEYS)}.`,
    }),
  },
  { additionalProperties: false },
);

export const BuyingCommitteeResponse = v2Item(BuyingCommittee);

export const BuyingCommitteeSetResponse = Type.Object({
  success: Type.Literal(true),
  data: BuyingCommittee,
  warnings: Type.Array(Type.String(), { description: 'Keys that no title classifies into: their cells will have no candidates.' }),
});

export const BuyingCommitteeContact = component(
  'BuyingCommitteeContact',
  Type.Object(
    {
      id: Type.String({ description: '`c_N` for a contact of the community, `pc_N` for a person of the prospector data.' }),
      source: Type.Enum(['contact', 'prospector'], { description: 'Where the candidate comes from.' }),
      name: Type.String(),
      title: Type.String({ description: 'The title that placed the candidate in the cell, as stored.' }),
      email: Nullable(Type.String({ description: 'A contact’s primary email; always null for a prospector contact (withheld).' })),
      linkedInHandle: Nullable(Type.String()),
      activityCountAll: Type.Integer({ description: 'Every activity of the contact; 0 for a prospector contact.' }),
      latestActivityTime: Nullable(
        Type.String({ format: 'date-time', description: 'The contact’s latest activity; null without one (and for prospector contacts).' }),
      ),
      rankedBy: Type.Enum(['engagement', 'recency'], {
        description:
          '`engagement`: among the cell’s five with the most activities (ties: contacts before prospector contacts, then by ID); `recency`: among the five most recently active of the others.',
      }),
    },
    { description: 'A candidate of a buying committee cell.' },
  ),
);

export const BuyingCommitteeCell = component(
  'BuyingCommitteeCell',
  Type.Object(
    {
      id: Type.String({ description: '`bcc_<seniorityId>_<departmentId>`' }),
      seniority: BuyingCommitteeSeniority,
      department: BuyingCommitteeDepartment,
      contacts: Type.Array(BuyingCommitteeContact, {
        description: `Up to ${CANDIDATES_PER_GROUP} engagement-ranked candidates, then up to ${CANDIDATES_PER_GROUP} recently touched ones that are not among them; empty when nobody is classified into the cell.`,
      }),
    },
    { description: 'One seniority of a buying committee by one department, with its candidates at one organization.' },
  ),
);

/** `organizationId` is checked by the service, so a missing one is a 400 `invalid_organization_id` that says so. */
export const BuyingCommitteeCellsQuery = Type.Object(
  {
    organizationId: Type.Optional(Type.String({ description: 'Required: o_N, the organization whose candidates fill the cells.' })),
    cols: Type.Optional(Type.String({ description: colsDescription(META_COLS) })),
  },
  { additionalProperties: false },
);

export const BuyingCommitteeCellsResponse = v2Page(BuyingCommitteeCell, PageMeta);
