import Type from 'typebox';
import { component } from '../../http/components.ts';
import { Cursor, CursorMeta, Limit, Nullable, v2Item, v2Page } from '../../http/schemas.ts';

export const JOB_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;

const When = (what: string) => Type.String({ format: 'date-time', description: what });

export const Job = component(
  'Job',
  Type.Object({
    id: Type.Integer({ description: 'The job ID, as other answers give it (`jobId`) and `hearth jobs show ID` takes it.' }),
    kind: Type.String({ description: 'What the job does: `privacy.erase`, `source.import`, `lead_scores.recompute`, `insights.generate`, ...' }),
    status: Type.Enum([...JOB_STATUSES], {
      description:
        '`queued` (waiting for its time or a worker; a failed attempt with attempts left waits here), `running`, `completed` or `failed` (for good).',
    }),
    attempts: Type.Integer({ description: 'Attempts started so far.' }),
    maxAttempts: Type.Integer({ description: 'Attempts before the job fails for good.' }),
    payload: Type.Unknown({ description: 'What the job works on: IDs, never personal data.' }),
    progress: Type.Unknown({ description: 'How far the running (or last) attempt got, as the job reports it; `{}` before it reports.' }),
    result: Type.Unknown({ description: 'What the job returned when it completed; null before.' }),
    error: Nullable(Type.String({ description: "The last failed attempt's error (kept while a retry waits); null when none failed or it completed." })),
    createdAt: When('When it was enqueued.'),
    runAt: When('Not before this time: the next attempt of a retry waiting for its backoff.'),
    startedAt: Nullable(When('When its first attempt started.')),
    finishedAt: Nullable(When('When it completed or failed for good.')),
    lockedBy: Nullable(Type.String({ description: 'The worker (host:pid:…) running it, while it runs.' })),
    lockedUntil: Nullable(When('Until when that worker holds it without news (it renews the lease while the job runs).')),
  }),
);

export const JobsQuery = Type.Object(
  {
    limit: Limit,
    cursor: Type.Optional(Cursor),
    status: Type.Optional(Type.Enum([...JOB_STATUSES], { description: 'Only jobs in this status.' })),
    kind: Type.Optional(Type.String({ minLength: 1, description: 'Only jobs of this kind (one the server runs).' })),
  },
  { additionalProperties: false },
);

export const JobParams = Type.Object({ id: Type.String({ description: 'The job ID (a positive integer).' }) });

export const JobsPage = v2Page(Job, CursorMeta);
export const JobResponse = v2Item(Job);
