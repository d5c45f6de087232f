import Type from 'typebox';
import { colsDescription, type ColsOptions } from '../../http/cols.ts';
import { Cursor, Direction, Limit, Nullable, PageMeta, v2Definitions, v2Item, v2Page } from '../../http/schemas.ts';
import { sortDescription, type SortOptions } from '../../http/sort.ts';
import { CustomFieldValues } from '../custom-fields/index.ts';
import { lightFilterParam } from '../../filters/light-filter.param.ts';
import { OBJECT_FILTERS } from './object.filters.ts';
import { OBJECT_SORTS } from './object-read.repository.ts';
import { component } from '../../http/components.ts';

/** Opt-in columns of custom objects (docs/behaviour.md, cols). */
export const OBJECT_LIST_COLS: ColsOptions = { optIn: ['recordKey'], recordCount: true };
export const OBJECT_GET_COLS: ColsOptions = { optIn: ['recordKey'] };
export const OBJECT_SORT: SortOptions = { fixed: OBJECT_SORTS, default: 'id' };

export const ObjectType = component(
  'ObjectType',
  Type.Object({
    id: Type.String({ description: 'cot_N' }),
    name: Type.String(),
    assocs: Type.Array(
      Type.Object({
        objectAssocType: Type.String(),
        targetEntity: Type.String({ description: 'contact, organization or object' }),
        targetObjectTypeId: Nullable(Type.String({ description: 'cot_N when the target is a custom object' })),
      }),
    ),
  }),
);

/** A custom object; `recordKey` appears only when `cols` names it. */
export const CustomObject = component(
  'CustomObject',
  Type.Object({
    id: Type.String({ description: 'co_N' }),
    name: Type.String(),
    recordKey: Type.Optional(Type.String({ description: "The object's key within its type (opt-in: `cols=recordKey`)." })),
    customFields: CustomFieldValues,
  }),
);

/** `objectTypeId` is checked by the service, so a missing one is a 400 `invalid_parameters` that says so. */
export const ObjectsQuery = Type.Object(
  {
    objectTypeId: Type.Optional(Type.String({ description: 'Required: cot_N, the object type to list.' })),
    segmentId: Type.Optional(Type.String({ description: 's_N: only the members of this segment (an object segment of that type).' })),
    limit: Limit,
    cursor: Type.Optional(Cursor),
    sort: Type.Optional(Type.String({ description: `${sortDescription(OBJECT_SORT)} \`name\` is case-insensitive, ties by ID.` })),
    direction: Direction,
    cols: Type.Optional(Type.String({ description: colsDescription(OBJECT_LIST_COLS) })),
    lightFilter: lightFilterParam(OBJECT_FILTERS, 'object', { customFields: true }),
  },
  { additionalProperties: false },
);

export const ObjectQuery = Type.Object(
  { cols: Type.Optional(Type.String({ description: colsDescription(OBJECT_GET_COLS) })) },
  { additionalProperties: false },
);

export const ObjectParams = Type.Object({ id: Type.String({ description: 'co_N' }) });

export const ObjectTypeList = v2Definitions(ObjectType);
export const ObjectItem = v2Item(CustomObject);
export const ObjectPage = v2Page(CustomObject, PageMeta);
