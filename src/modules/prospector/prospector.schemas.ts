import Type from 'typebox';
import { colsDescription, type ColsOptions } from '../../http/cols.ts';
import { component } from '../../http/components.ts';
import { Cursor, Direction, Limit, Nullable, PageMeta, Place, v2Item, v2Page } from '../../http/schemas.ts';
import { sortDescription, type SortOptions } from '../../http/sort.ts';
import type { ListFields } from '../../filters/field-registry.ts';
import { lightFilterParam } from '../../filters/light-filter.param.ts';
import { PROSPECTOR_COMPANY_FILTERS } from './prospector-company.filters.ts';
import { PROSPECTOR_CONTACT_FILTERS } from './prospector-contact.filters.ts';
import { COMPANY_SORTS } from './prospector-company.repository.ts';
import { CONTACT_SORTS } from './prospector-contact.repository.ts';

/** Opt-in columns (docs/behaviour.md, cols): everything but `id` and `name`. */
export const COMPANY_COLS = [
  'description',
  'primaryWebsite',
  'logoUrl',
  'subIndustry',
  'employees',
  'raised',
  'linkedInHandles',
  'technologies',
  'location',
  'revenueRange',
] as const;
export const CONTACT_COLS = [
  'fullName',
  'avatarUrl',
  'companyName',
  'companyWebsite',
  'title',
  'role',
  'seniority',
  'linkedInHandle',
  'linkedInFollowerCount',
  'location',
  'skills',
] as const;
export type CompanyCol = (typeof COMPANY_COLS)[number];
export type ContactCol = (typeof CONTACT_COLS)[number];

export const COMPANY_LIST_COLS: ColsOptions = { optIn: COMPANY_COLS, recordCount: true };
export const COMPANY_GET_COLS: ColsOptions = { optIn: COMPANY_COLS };
export const CONTACT_LIST_COLS: ColsOptions = { optIn: CONTACT_COLS, recordCount: true };
export const CONTACT_GET_COLS: ColsOptions = { optIn: CONTACT_COLS };

export const COMPANY_SORT: SortOptions = { fixed: COMPANY_SORTS, default: 'id' };
export const CONTACT_SORT: SortOptions = { fixed: CONTACT_SORTS, default: 'id' };

const optIn = (description: string) => `${description} (opt-in).`;

/** A prospector company; every field but `id` and `name` appears only when `cols` names it. */
export const ProspectorCompany = component(
  'ProspectorCompany',
  Type.Object({
    id: Type.String({ description: 'pco_N' }),
    name: Type.String(),
    description: Type.Optional(Nullable(Type.String({ description: optIn('What the company does') }))),
    primaryWebsite: Type.Optional(Nullable(Type.String({ description: optIn('Its website; `https://<domain>` unless imported otherwise') }))),
    logoUrl: Type.Optional(Nullable(Type.String({ description: optIn('Address of its logo') }))),
    subIndustry: Type.Optional(Nullable(Type.String({ description: optIn("Its industry in the data provider's words") }))),
    employees: Type.Optional(Nullable(Type.Integer({ description: optIn('Number of employees') }))),
    raised: Type.Optional(Nullable(Type.Number({ description: optIn('Capital raised') }))),
    linkedInHandles: Type.Optional(Type.Array(Type.String(), { description: optIn('Its LinkedIn company pages (`linkedin.com/company/<handle>`)') })),
    technologies: Type.Optional(Type.Array(Type.String(), { description: optIn('Products it uses, spelled as GET /api/v2/tech-stack-products spells them') })),
    location: Type.Optional(
      Nullable(
        Type.Object(
          {
            address: Nullable(Type.String()),
            city: Nullable(Type.String()),
            state: Nullable(Type.String()),
            country: Nullable(Type.String()),
            countryCode: Nullable(Type.String({ description: 'ISO 3166-1 alpha-2' })),
          },
          { description: optIn('Its headquarters; null when nothing of it is known') },
        ),
      ),
    ),
    revenueRange: Type.Optional(
      Nullable(Type.Object({ min: Nullable(Type.Number()), max: Nullable(Type.Number()) }, { description: optIn('Yearly revenue; null when unknown') })),
    ),
  }),
);

/** A prospector contact; every field but `id` and `name` appears only when `cols` names it. */
export const ProspectorContact = component(
  'ProspectorContact',
  Type.Object({
    id: Type.String({ description: 'pc_N' }),
    name: Type.String(),
    fullName: Type.Optional(Nullable(Type.String({ description: optIn('Full name') }))),
    avatarUrl: Type.Optional(Nullable(Type.String({ description: optIn('Address of a picture') }))),
    companyName: Type.Optional(Nullable(Type.String({ description: optIn("The name of the contact's prospector company") }))),
    companyWebsite: Type.Optional(Nullable(Type.String({ description: optIn("That company's `primaryWebsite`") }))),
    title: Type.Optional(Nullable(Type.String({ description: optIn('Job title') }))),
    role: Type.Optional(Nullable(Type.String({ description: optIn('Department or function (engineering, sales, ...)') }))),
    seniority: Type.Optional(Nullable(Type.String({ description: optIn('Seniority (director, vp, ...)') }))),
    linkedInHandle: Type.Optional(Nullable(Type.String({ description: optIn('LinkedIn profile id (`linkedin.com/in/<handle>`), lowercased') }))),
    linkedInFollowerCount: Type.Optional(Nullable(Type.Integer({ description: optIn('LinkedIn followers') }))),
    location: Type.Optional(Nullable(Type.Object(Place.properties, { description: optIn('Where the contact is; null when unknown') }))),
    skills: Type.Optional(Type.Array(Type.String(), { description: optIn('Skills, as imported') })),
  }),
);

const listQuery = (sort: SortOptions, cols: ColsOptions, filters: ListFields, entity: string, sortNote: string) =>
  Type.Object(
    {
      limit: Limit,
      cursor: Type.Optional(Cursor),
      sort: Type.Optional(Type.String({ description: `${sortDescription(sort)} ${sortNote}` })),
      direction: Direction,
      cols: Type.Optional(Type.String({ description: colsDescription(cols) })),
      lightFilter: lightFilterParam(filters, entity),
    },
    { additionalProperties: false },
  );

export const CompaniesQuery = listQuery(
  COMPANY_SORT,
  COMPANY_LIST_COLS,
  PROSPECTOR_COMPANY_FILTERS,
  'prospector_company',
  '`name` ignores case; `employeeCount`, `capitalRaised` and `score` put companies without a value last in both directions; ties by ID.',
);
export const ContactsQuery = listQuery(
  CONTACT_SORT,
  CONTACT_LIST_COLS,
  PROSPECTOR_CONTACT_FILTERS,
  'prospector_contact',
  '`name`, `title`, `seniority` and `role` ignore case; contacts without a value come last in both directions; ties by ID.',
);

export const CompanyQuery = Type.Object(
  { cols: Type.Optional(Type.String({ description: colsDescription(COMPANY_GET_COLS) })) },
  { additionalProperties: false },
);
export const ContactQuery = Type.Object(
  { cols: Type.Optional(Type.String({ description: colsDescription(CONTACT_GET_COLS) })) },
  { additionalProperties: false },
);

export const CompanyParams = Type.Object({ id: Type.String({ description: 'pco_N' }) });
export const ContactParams = Type.Object({ id: Type.String({ description: 'pc_N' }) });

export const CompanyPage = v2Page(ProspectorCompany, PageMeta);
export const ContactPage = v2Page(ProspectorContact, PageMeta);
export const CompanyItem = v2Item(ProspectorCompany);
export const ContactItem = v2Item(ProspectorContact);
