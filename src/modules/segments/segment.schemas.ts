import Type from 'typebox';
import { Nullable } from '../../http/schemas.ts';

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
