import Type from 'typebox';
import { colsDescription, type ColsOptions } from '../../http/cols.ts';
import { Cursor, Limit, Nullable, PageMeta, v2Page } from '../../http/schemas.ts';
import { lightFilterParam } from '../../filters/light-filter.param.ts';
import { WEBSITE_VISIT_FILTERS } from './website-visit.filters.ts';
import { component } from '../../http/components.ts';

/** Opt-in columns of website visits (docs/behaviour.md, cols). */
export const WEBSITE_VISIT_LIST_COLS: ColsOptions = { optIn: ['url', 'contactId', 'organizationId'], recordCount: true };

/** A website visit; `url`, `contactId` and `organizationId` appear only when `cols` names them. */
export const WebsiteVisit = component(
  'WebsiteVisit',
  Type.Object({
    id: Type.String({ description: 'w_N' }),
    visitTime: Type.String({ format: 'date-time' }),
    url: Type.Optional(Type.String({ description: 'The page visited (opt-in: `cols=url`).' })),
    contactId: Type.Optional(Nullable(Type.String({ description: 'c_N; null for a visitor not known as a contact (opt-in).' }))),
    organizationId: Type.Optional(Nullable(Type.String({ description: 'o_N; null when unknown (opt-in).' }))),
  }),
);

export const WebsiteVisitsQuery = Type.Object(
  {
    limit: Limit,
    cursor: Type.Optional(Cursor),
    cols: Type.Optional(Type.String({ description: colsDescription(WEBSITE_VISIT_LIST_COLS) })),
    contactId: Type.Optional(Type.String({ description: "c_N: only this contact's visits (a merged contact's ID stands for its survivor)." })),
    organizationId: Type.Optional(Type.String({ description: "o_N: only this organization's visits." })),
    lightFilter: lightFilterParam(WEBSITE_VISIT_FILTERS, 'website_visit'),
  },
  { additionalProperties: false },
);

export const WebsiteVisitPage = v2Page(WebsiteVisit, PageMeta);
