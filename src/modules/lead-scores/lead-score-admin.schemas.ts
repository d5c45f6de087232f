import Type from 'typebox';
import { Nullable, v2Item } from '../../http/schemas.ts';
import { component } from '../../http/components.ts';
import { FIT_FIELDS } from './lead-score-rules.ts';

const points = Type.Number({ minimum: -1_000_000, maximum: 1_000_000, description: 'Added to the score when the rule matches (negative: taken away).' });
const cap = (description: string) => Nullable(Type.Number({ minimum: 0, maximum: 1_000_000_000, description }));

const WeightRule = Type.Object(
  {
    activityType: Type.String({ minLength: 1, maxLength: 200, description: 'The activity type key (`star`, `pull_request`, …).' }),
    sourceId: Type.Optional(Type.Integer({ minimum: 1, description: 'Only activities of this source (`sourceId` of /api/v2/admin/sources).' })),
    subSource: Type.Optional(
      Type.String({ minLength: 1, maxLength: 500, description: 'Only activities of this sub-source (channel, repository) of `sourceId`.' }),
    ),
    weight: Type.Number({
      minimum: -1_000_000,
      maximum: 1_000_000,
      description: 'What one activity adds to the score on the day it happened; it halves every `halfLifeDays`.',
    }),
  },
  { additionalProperties: false },
);

const FitRule = Type.Object(
  {
    field: Type.Enum([...FIT_FIELDS], {
      description:
        "titleSeniority (contacts; `values` among the title classifier's seniorities: c_level, vp, head, director, manager, lead, senior, individual_contributor, intern), " +
        "organizationSize (the organization's employees between `min` and `max`, inclusive), country (`values`: ISO 3166 alpha-2 codes or country names), " +
        'tag (`tagId`), customField (`customFieldId` and the `values` that match).',
    }),
    points,
    values: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 200, uniqueItems: true })),
    min: Type.Optional(Type.Integer({ minimum: 0 })),
    max: Type.Optional(Type.Integer({ minimum: 0 })),
    tagId: Type.Optional(Type.String({ description: 'l_N' })),
    customFieldId: Type.Optional(Type.String({ description: 'cf_N' })),
  },
  { additionalProperties: false },
);

/** The members that say how a score is computed: the same in a definition, a change and a dry run. */
const ruleMembers = {
  halfLifeDays: Type.Optional(
    Type.Number({ exclusiveMinimum: 0, maximum: 3650, description: 'An activity counts half as much every this many days (default 30).' }),
  ),
  lookbackDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650, description: 'Older activities count for nothing (default 365).' })),
  activityCap: Type.Optional(cap('The most the activities together add (null: no cap).')),
  scoreCap: Type.Optional(cap('The most the score can be (null: no cap).')),
  weights: Type.Optional(
    Type.Array(WeightRule, {
      maxItems: 200,
      description:
        'Each activity takes the weight of the most specific rule that matches it: type, source and sub-source, then type and source, then type. An activity no rule matches adds nothing.',
    }),
  ),
  fit: Type.Optional(Type.Array(FitRule, { maxItems: 100, description: 'Points for what the record is, added after the activity cap.' })),
};

const name = Type.String({ minLength: 1, maxLength: 200 });
const description = Nullable(Type.String({ maxLength: 2000 }));
const outputType = Type.Enum(['percentile', 'score'], { description: 'Which of the two values a client should show (both are stored).' });
const isPrimaryScore = Type.Boolean({
  description: 'At most one live definition per entity type is primary: making one primary makes the previous primary not primary.',
});

export const AdminLeadScore = component(
  'AdminLeadScore',
  Type.Object({
    id: Type.String({ description: 'ls_N' }),
    name: Type.String(),
    description: Nullable(Type.String()),
    entityType: Type.String({ description: 'contact or organization' }),
    enabled: Type.Boolean(),
    isPrimaryScore: Type.Boolean(),
    outputType: Type.String(),
    computed: Type.Boolean({ description: 'Hearth computes it (false: a definition made outside the API, whose values Hearth leaves as they are).' }),
    halfLifeDays: Nullable(Type.Number()),
    lookbackDays: Nullable(Type.Integer()),
    activityCap: Nullable(Type.Number()),
    scoreCap: Nullable(Type.Number()),
    weights: Type.Array(
      Type.Object({ activityType: Type.String(), sourceId: Type.Optional(Type.Integer()), subSource: Type.Optional(Type.String()), weight: Type.Number() }),
    ),
    fit: Type.Array(
      Type.Object({
        field: Type.String(),
        points: Type.Number(),
        values: Type.Optional(Type.Array(Type.String())),
        min: Type.Optional(Type.Integer()),
        max: Type.Optional(Type.Integer()),
        tagId: Type.Optional(Type.String()),
        customFieldId: Type.Optional(Type.String()),
      }),
    ),
    version: Type.Integer({ description: 'Grows when what computes the score changes (rules, or enabling it).' }),
    computedVersion: Nullable(Type.Integer({ description: 'The version the last finished full recompute used.' })),
    computedAt: Nullable(Type.String({ format: 'date-time', description: 'When the last full recompute started computing (scores decay to that moment).' })),
    recomputeJobId: Nullable(Type.Integer({ description: 'The queued or running full recompute (`hearth jobs show ID`).' })),
    scoredCount: Type.Integer({ description: 'Records holding a score of the definition.' }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    retiredAt: Nullable(Type.String({ format: 'date-time' })),
  }),
);

export const NewLeadScoreBody = Type.Object(
  {
    name,
    description: Type.Optional(description),
    entityType: Type.Enum(['contact', 'organization'], { description: "An organization's activities are its contacts'." }),
    enabled: Type.Optional(Type.Boolean({ description: 'Default true.' })),
    isPrimaryScore: Type.Optional(isPrimaryScore),
    outputType: Type.Optional(outputType),
    ...ruleMembers,
  },
  { additionalProperties: false },
);

export const LeadScoreChangesBody = Type.Object(
  {
    name: Type.Optional(name),
    description: Type.Optional(description),
    enabled: Type.Optional(Type.Boolean()),
    isPrimaryScore: Type.Optional(isPrimaryScore),
    outputType: Type.Optional(outputType),
    ...ruleMembers,
  },
  { additionalProperties: false, minProperties: 1 },
);

export const DryRunQuery = Type.Object(
  { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'How many of the top records to show.' })) },
  { additionalProperties: false },
);

export const AdminLeadScoresQuery = Type.Object(
  { includeRetired: Type.Optional(Type.Boolean({ default: false, description: 'List retired definitions too.' })) },
  { additionalProperties: false },
);

export const AdminLeadScoreParams = Type.Object({ id: Type.String({ description: 'ls_N' }) });

const KeyFactor = Type.Object({ label: Type.String(), value: Type.String(), strength: Type.Number() });

export const DryRunResult = component(
  'LeadScoreDryRun',
  Type.Object({
    entityType: Type.String(),
    scored: Type.Integer({ description: 'Records the definition would score.' }),
    nonZero: Type.Integer({ description: 'Of them, those whose score would not be 0.' }),
    top: Type.Array(
      Type.Object({
        id: Type.String({ description: 'c_N or o_N' }),
        name: Type.String(),
        score: Type.Number(),
        percentile: Type.Number(),
        keyFactors: Type.Array(KeyFactor),
      }),
    ),
  }),
);

export const AdminLeadScoreResponse = v2Item(AdminLeadScore);
export const AdminLeadScoresResponse = v2Item(Type.Array(AdminLeadScore));
export const DryRunResponse = v2Item(DryRunResult);
