import Type from 'typebox';
import { Nullable, v2Item } from '../../http/schemas.ts';
import { MAX_SEGMENT_DESCRIPTION, MAX_SEGMENT_NAME } from './segment-write.service.ts';

// Lengths are checked by the service after trimming, so that the answer says how long the name was.
const SegmentName = Type.String({
  minLength: 1,
  description: `Trimmed; 1..${MAX_SEGMENT_NAME} characters. Unique among the segments of the entity type, ignoring case (409 otherwise).`,
});

export const NewSegmentBody = Type.Object(
  {
    name: SegmentName,
    description: Type.Optional(Nullable(Type.String({ description: `Markdown, at most ${MAX_SEGMENT_DESCRIPTION} characters; blank means none.` }))),
    entityType: Type.Optional(Type.Enum(['contact', 'organization', 'object'], { default: 'contact', description: 'What the segment holds.' })),
    objectTypeId: Type.Optional(
      Nullable(
        Type.String({
          description:
            'cot_N: required exactly when entityType is `object`; for another entity type, or an unknown object type, a 400 `invalid_object_type_id`.',
        }),
      ),
    ),
  },
  { additionalProperties: false },
);

export const RenameSegmentBody = Type.Object({ name: SegmentName }, { additionalProperties: false });

/** Create and rename answer only `{id, name}` (docs/behaviour.md, Envelopes). */
export const SegmentIdName = v2Item(Type.Object({ id: Type.String({ description: 's_N' }), name: Type.String() }));

export const SegmentContactParams = Type.Object({
  id: Type.String({ description: 's_N: a contact segment' }),
  contactId: Type.String({ description: "c_N; a merged contact's ID stands for the contact it was merged into" }),
});

export const NoContent = Type.Null({ description: 'No body.' });
