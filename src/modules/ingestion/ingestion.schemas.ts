import Type from 'typebox';
import { Nullable } from '../../http/schemas.ts';

/**
 * The core pushes are lenient, as real clients need (docs/behaviour.md, Ingestion): unknown fields are kept out
 * of the schema's way and named in the answer's `warnings`; `null` for an array or object means empty. Types
 * are still checked: a number where a string belongs is a 400 that says so.
 */
const Text = Nullable(Type.String());
// Values that end up in indexed columns have limits: PostgreSQL cannot index a longer key (about 2,700 bytes).
const Id = Type.Union([Type.String({ minLength: 1, maxLength: 500 }), Type.Integer()]);
const Name = (maxLength: number) => Nullable(Type.String({ maxLength }));
const Handle = Type.Union([Type.String(), Type.Object({ type: Type.Optional(Type.String()), value: Type.Optional(Text) }), Type.Null()]);
const TagRef = Type.Union([
  Type.Object({ type: Type.Literal('id'), id: Id }),
  Type.Object({ type: Type.Literal('name'), name: Type.String({ minLength: 1 }) }),
]);
const Tags = Nullable(Type.Array(TagRef));

const USER_DESCRIPTION = 'A user as the sending system knows it (ApiUser). Give as many identities as you have, for matching.';

export const ApiUserSchema = Type.Object(
  {
    id: Id,
    fullName: Type.Optional(Text),
    firstName: Type.Optional(Text),
    lastName: Type.Optional(Text),
    username: Type.Optional(Text),
    avatarUrl: Type.Optional(Text),
    bio: Type.Optional(Text),
    email: Type.Optional(Text),
    linkedin: Type.Optional(Handle),
    github: Type.Optional(Handle),
    twitter: Type.Optional(Handle),
    discord: Type.Optional(
      Type.Union([
        Type.String(),
        Type.Object({
          type: Type.Optional(Type.String()),
          username: Type.Optional(Text),
          discriminator: Type.Optional(Type.Union([Type.Integer(), Type.String(), Type.Null()])),
        }),
        Type.Null(),
      ]),
    ),
    externalProfiles: Type.Optional(Nullable(Type.Array(Type.Object({ url: Type.Optional(Text), name: Type.Optional(Text) })))),
    roleAtCompany: Type.Optional(Text),
    titleAtCompany: Type.Optional(Text),
    companyName: Type.Optional(Name(500)),
    companyDomain: Type.Optional(Text),
    country: Type.Optional(Text),
    city: Type.Optional(Text),
    region: Type.Optional(Text),
    rawLocation: Type.Optional(Text),
    phoneNumber: Type.Optional(Text),
    phoneNumbers: Type.Optional(Nullable(Type.Array(Type.Union([Type.String(), Type.Object({ type: Type.Optional(Text), value: Type.Optional(Text) })])))),
    tags: Type.Optional(Tags),
    customFields: Type.Optional(
      Nullable(
        Type.Array(
          Type.Object({
            id: Id,
            value: Type.Optional(Nullable(Type.Object({ type: Type.Optional(Type.String()), value: Type.Optional(Type.Unknown()) }))),
          }),
        ),
      ),
    ),
  },
  { description: USER_DESCRIPTION },
);

const DestinationSourceId = Type.Optional(
  Type.Union([Type.Integer(), Type.String({ pattern: '^[0-9]+$' })], { description: "Repeats the path's source ID; must agree with it" }),
);

export const UserPushBody = Type.Object({ ...ApiUserSchema.properties, destinationSourceId: DestinationSourceId }, { description: USER_DESCRIPTION });

const TextContent = Type.Union([Type.Object({ type: Type.Optional(Type.String()), value: Text }), Type.String(), Type.Null()]);

export const ActivityPushBody = Type.Object({
  destinationSourceId: DestinationSourceId,
  id: Id,
  activityType: Type.String({ minLength: 1, maxLength: 100, description: 'One of GET /community/v1/activityTypes' }),
  user: ApiUserSchema,
  activityTitle: Type.Optional(TextContent),
  content: Type.Optional(TextContent),
  timestamp: Type.Optional(Nullable(Type.String({ description: 'ISO 8601, or RFC 2822/1123; absent means now' }))),
  url: Type.Optional(Text),
  tags: Type.Optional(Tags),
  parentActivity: Type.Optional(Nullable(Type.Object({ id: Id, activityType: Type.Optional(Name(100)) }))),
  subSource: Type.Optional(Type.Union([Type.Object({ type: Type.Optional(Type.String()), name: Name(200) }), Type.String({ maxLength: 200 }), Type.Null()])),
});

export const SourcePathParams = Type.Object({ destinationSourceId: Type.String({ description: 'The source ID (integer)' }) });

export const Accepted = Type.Object({
  status: Type.Literal('accepted'),
  contactId: Nullable(Type.String({ description: 'c_N; null when nothing was stored (a suppressed person)' })),
  activityId: Type.Optional(Nullable(Type.String({ description: 'a_N' }))),
  warnings: Type.Array(Type.String(), { description: 'What was dropped or ignored, and why' }),
});

const MAX_BATCH_ITEMS = 1000;

const batchBody = (what: string) =>
  Type.Array(Type.Unknown(), {
    minItems: 1,
    maxItems: MAX_BATCH_ITEMS,
    description:
      `Up to ${MAX_BATCH_ITEMS} ${what}, each exactly the body of the single push (destinationSourceId may be left out). ` +
      'Each item is checked by itself: a bad one is answered in `results` with its errors and the others are stored, in order.',
  });

export const UserBatchBody = batchBody('users');
export const ActivityBatchBody = batchBody('activities');

const ItemAccepted = Type.Object({
  index: Type.Integer({ description: 'Position of the item in the request, from 0' }),
  status: Type.Literal('accepted'),
  contactId: Nullable(Type.String({ description: 'c_N; null when nothing was stored (a suppressed person)' })),
  activityId: Type.Optional(Nullable(Type.String({ description: 'a_N' }))),
  warnings: Type.Array(Type.String()),
});

const ItemRejected = Type.Object({
  index: Type.Integer({ description: 'Position of the item in the request, from 0' }),
  status: Type.Literal('rejected'),
  errors: Type.Array(Type.String(), { description: 'What is wrong with the item; nothing of it was stored' }),
});

export const BatchAccepted = Type.Object({
  status: Type.Literal('accepted'),
  accepted: Type.Integer({ description: 'Items stored' }),
  rejected: Type.Integer({ description: 'Items refused, each with its errors in `results`' }),
  results: Type.Array(Type.Union([ItemAccepted, ItemRejected]), { description: 'One per item, in the order of the request' }),
});

export const IngestionBacklog = Type.Object({
  success: Type.Literal(true),
  data: Type.Object({
    queuedPushes: Type.Integer({ description: 'Pushes of the community taken in and not answered yet' }),
    oldestQueuedMs: Nullable(Type.Integer({ description: 'How long the oldest of them has waited, in milliseconds' })),
    storedLastMinute: Type.Integer({ description: 'Pushes stored in the last 60 seconds' }),
    batchesLastMinute: Type.Integer({ description: 'Transactions they were stored in' }),
    processes: Type.Integer({ description: 'Serving processes with pushes of the community waiting or stored in the last minute' }),
  }),
});
