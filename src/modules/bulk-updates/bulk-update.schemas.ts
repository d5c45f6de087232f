import Type from 'typebox';
import { v2Item } from '../../http/schemas.ts';
import { MAX_BULK_IDS, MAX_BULK_TAGS } from './bulk-update-targets.ts';

const recordIds = (prefix: string, what: string) =>
  Type.Array(Type.String({ description: `${prefix}N` }), {
    minItems: 1,
    maxItems: MAX_BULK_IDS,
    description: `The ${what} to update, 1..${MAX_BULK_IDS} IDs. A repeated ID counts once.`,
  });

const segmentId = (what: string) =>
  Type.Optional(Type.String({ description: `s_N: a ${what} segment to add every record to; records already in it are skipped.` }));

const tagIds = (verb: 'add' | 'remove', what: string) =>
  Type.Optional(
    Type.Array(Type.String({ description: 'l_N' }), {
      maxItems: MAX_BULK_TAGS,
      description:
        verb === 'add'
          ? `Tags to assign to every record (at most ${MAX_BULK_TAGS}); each must be live and allow ${what}. Tags already assigned are skipped.`
          : `Tags to take off every record (at most ${MAX_BULK_TAGS}); each must be live and allow ${what}. Records without the tag are skipped.`,
    }),
  );

const CustomFieldWrite = Type.Object(
  {
    customFieldId: Type.String({ description: 'cf_N: a live custom field of the entity' }),
    customFieldValue: Type.Object(
      {
        type: Type.String({ description: "The field's value type (string, url, int, number, date, boolean, enum)" }),
        value: Type.Unknown({ description: 'A value of that type; null clears the field' }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

const customFields = Type.Optional(
  Type.Array(CustomFieldWrite, {
    minItems: 1,
    description: 'Values to set on every record, each field at most once, checked against its definition; a null value clears the field.',
  }),
);

export const ContactBulkUpdateBody = Type.Object(
  {
    contactIds: recordIds('c_', 'contacts'),
    segmentId: segmentId('contact'),
    tagIdsToAdd: tagIds('add', 'members (contacts)'),
    tagIdsToRemove: tagIds('remove', 'members (contacts)'),
    customFields,
  },
  { additionalProperties: false },
);

export const OrganizationBulkUpdateBody = Type.Object(
  {
    organizationIds: recordIds('o_', 'organizations'),
    segmentId: segmentId('organization'),
    tagIdsToAdd: tagIds('add', 'companies (organizations)'),
    tagIdsToRemove: tagIds('remove', 'companies (organizations)'),
    customFields,
  },
  { additionalProperties: false },
);

export const ObjectBulkUpdateBody = Type.Object(
  {
    objectIds: recordIds('co_', 'custom objects'),
    segmentId: Type.Optional(
      Type.String({ description: 's_N: an object segment of the objects’ type to add every object to; objects already in it are skipped.' }),
    ),
    customFields,
  },
  { additionalProperties: false },
);

export const BulkUpdateResult = v2Item(
  Type.Object({
    ids: Type.Array(Type.String(), { description: 'Every record ID of the request, as given (once each), skipped ones included.' }),
  }),
);
