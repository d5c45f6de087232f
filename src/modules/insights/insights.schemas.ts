import Type from 'typebox';
import { Nullable, v2Item } from '../../http/schemas.ts';

export const InsightsRefreshBody = Type.Object(
  {
    all: Type.Optional(
      Type.Boolean({ description: 'Write every contact’s text and every model answer again, not only those whose data moved since (default false).' }),
    ),
  },
  { additionalProperties: false },
);

const Json = Type.Unknown();

const InsightsJob = Type.Object({
  jobId: Type.Integer({ description: 'The run (`hearth jobs show ID`).' }),
  status: Type.String({ description: 'queued, running, completed or failed.' }),
  progress: Json,
  result: Json,
  error: Nullable(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
  startedAt: Nullable(Type.String({ format: 'date-time' })),
  finishedAt: Nullable(Type.String({ format: 'date-time' })),
});

export const InsightsStatusResponse = v2Item(
  Type.Object({
    configured: Type.Boolean({ description: 'Whether a model endpoint is configured (HEARTH_LLM_URL); without one every text is the deterministic one.' }),
    model: Nullable(Type.String()),
    intervalSeconds: Nullable(Type.Integer({ description: 'How often serving processes look for due work (0: only on request).' })),
    contactsWithModelText: Type.Integer({ description: 'Contacts whose spark texts the model wrote.' }),
    modelResearchAnswers: Type.Integer({ description: 'Research answers the model wrote, of live prompts.' }),
    latestJob: Nullable(InsightsJob),
  }),
);

export const InsightsRefreshResponse = v2Item(
  Type.Object({
    jobId: Type.Integer({ description: 'The run; its progress shows in GET /api/v2/admin/insights and `hearth jobs show ID`.' }),
    created: Type.Boolean({ description: 'False when a run was already queued or running: that one is the answer.' }),
  }),
);
