import Type from 'typebox';
import { colsDescription, type ColsOptions } from '../../http/cols.ts';
import { Cursor, Limit, Nullable, PageMeta, v2Item, v2Page } from '../../http/schemas.ts';
import { component } from '../../http/components.ts';

/** Opt-in columns of v2 segments (docs/behaviour.md, cols); `url` is the trailing field. */
export const SEGMENT_LIST_COLS: ColsOptions = { optIn: ['entityCount', 'url'], recordCount: true };
export const SEGMENT_GET_COLS: ColsOptions = { optIn: ['entityCount', 'url'] };

/** Core segment and status references: `{id: number, name}`. */
export const CoreIdName = Type.Object({ id: Type.Integer(), name: Type.String() });

export const CoreSegmentList = Type.Array(CoreIdName);
export const CoreStatusList = Type.Array(CoreIdName);

export const CoreSegmentParams = Type.Object({ id: Type.String({ description: 'The segment ID: an integer (s_N is accepted too)' }) });

export const CoreSegmentAddBody = Type.Object(
  {
    socialType: Type.Enum(['email', 'twitter', 'github', 'linkedin']),
    value: Type.String({ description: 'Comma-separated values of that kind (at most 1000)' }),
    statusId: Type.Optional(Nullable(Type.Integer({ description: 'A status of this segment' }))),
  },
  { additionalProperties: false },
);

export const CoreSegmentAddResult = Type.Object({
  added: Type.Array(Type.String({ description: 'c_N' }), { description: 'Every contact found, including those already in the segment' }),
  notFound: Type.Array(Type.String(), { description: 'Values that no contact holds, or that are not valid values of that kind' }),
});

/** The v2 Segment; `entityCount` and `url` appear only when `cols` names them. */
export const V2Segment = component(
  'Segment',
  Type.Object({
    id: Type.String({ description: 's_N' }),
    name: Type.String(),
    entityType: Type.Enum(['contact', 'organization', 'object']),
    entityCount: Type.Optional(Type.Integer({ description: 'Members of the segment (opt-in: `cols=entityCount`).' })),
    url: Type.Optional(Type.String({ description: 'The segment in the web console (opt-in: `cols=url`).' })),
  }),
);

export const V2SegmentsQuery = Type.Object(
  {
    limit: Limit,
    cursor: Type.Optional(Cursor),
    cols: Type.Optional(Type.String({ description: colsDescription(SEGMENT_LIST_COLS) })),
    query: Type.Optional(Type.String({ maxLength: 500, description: 'Case-insensitive substring of the name.' })),
  },
  { additionalProperties: false },
);

export const V2SegmentQuery = Type.Object(
  { cols: Type.Optional(Type.String({ description: colsDescription(SEGMENT_GET_COLS) })) },
  { additionalProperties: false },
);

export const V2SegmentParams = Type.Object({ id: Type.String({ description: 's_N' }) });

export const V2SegmentItem = v2Item(V2Segment);
export const V2SegmentPage = v2Page(V2Segment, PageMeta);
