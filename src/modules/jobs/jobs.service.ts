import type { CursorCodec } from '../../core/cursor.ts';
import { HearthError, invalidParameters, notFound } from '../../core/errors.ts';
import type { PageRequest } from '../../core/list-query.ts';
import { pageWithCursor } from '../../core/paging.ts';
import type { JobQueue, JobRow } from '../../jobs/job-queue.ts';

export interface JobsFilter {
  status?: JobRow['status'];
  kind?: string;
}

/** Background jobs over HTTP: what `hearth jobs` and `hearth jobs show` print, for one community. */
export function createJobAdminService(deps: { jobs: JobQueue; cursors: CursorCodec }) {
  const { jobs, cursors } = deps;

  function checkKind(kind: string | undefined): void {
    if (kind === undefined) return;
    const kinds = jobs.kinds().sort();
    // A misspelt kind would otherwise answer an empty list, which reads as "no such jobs".
    if (!kinds.includes(kind)) throw invalidParameters(`kind must be one of ${kinds.join(', ')}; got "${kind}"`);
  }

  return {
    /** GET /api/v2/admin/jobs: newest first, keyset paged behind a cursor bound to the filters. */
    async page(communityId: number, filter: JobsFilter, request: PageRequest) {
      checkKind(filter.kind);
      const binding = { community: communityId, list: 'jobs', sort: 'id', direction: 'desc' as const, filters: { ...filter } };
      const page = await pageWithCursor(cursors, binding, request, (after) => jobs.page({ communityId, ...filter }, { after, limit: request.limit }));
      return { data: page.rows.map(presentJob), meta: { nextCursor: page.nextCursor } };
    },

    async get(communityId: number, id: string) {
      const jobId = parseJobId(id);
      // Scoped by community: another community's job is as absent as one that never was.
      const job = await jobs.find(communityId, jobId);
      if (!job) throw notFound('job_not_found', `no job ${jobId}`);
      return presentJob(job);
    },
  };
}

export type JobAdminService = ReturnType<typeof createJobAdminService>;

function parseJobId(value: string): number {
  const id = /^[1-9]\d{0,15}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(id))
    throw new HearthError('invalid_job_id', `"${value}" is not a valid job ID (expected a positive integer)`, { invalidIds: [value] });
  return id;
}

export function presentJob(job: JobRow) {
  return {
    id: job.id,
    kind: job.kind,
    status: job.status,
    attempts: job.attempts,
    maxAttempts: job.maxAttempts,
    payload: job.payload,
    progress: job.progress,
    result: job.result,
    error: job.error,
    createdAt: job.createdAt.toISOString(),
    runAt: job.runAt.toISOString(),
    startedAt: job.startedAt?.toISOString() ?? null,
    finishedAt: job.finishedAt?.toISOString() ?? null,
    lockedBy: job.lockedBy,
    lockedUntil: job.lockedUntil?.toISOString() ?? null,
  };
}
