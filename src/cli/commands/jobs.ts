import { formatId } from '../../core/ids.ts';
import type { JobRow } from '../../jobs/job-queue.ts';
import { JOB_STATUSES, presentJob } from '../../modules/jobs/index.ts';
import { communityOrAll, positiveInteger, required, table, UsageError, type Command } from '../command.ts';

function jobStatus(value: string | undefined): JobRow['status'] | undefined {
  if (value === undefined || (JOB_STATUSES as readonly string[]).includes(value)) return value as JobRow['status'] | undefined;
  throw new UsageError(`--status must be one of ${JOB_STATUSES.join(', ')}`);
}

/** The job as the admin API presents it, with its community, without the lease's end. */
function jobView(job: JobRow) {
  const { id, lockedUntil: _lease, ...presented } = presentJob(job);
  return { id, communityId: formatId('community', job.communityId), ...presented };
}

/** One line's worth of a job: its error, else its result, else its progress (`jobs show` has all of it). */
function brief(job: ReturnType<typeof jobView>): string {
  const text = job.error ?? JSON.stringify(job.result ?? job.progress);
  return text.length > 100 ? `${text.slice(0, 99)}…` : text;
}

export const jobsCommand: Command = {
  name: 'jobs',
  run: {
    async ''({ services, values, emit }) {
      const list = (
        await services.jobs.list({
          communityId: await communityOrAll(services, values.community),
          status: jobStatus(values.status),
          limit: values.limit ? positiveInteger(values.limit, '--limit') : undefined,
        })
      ).map(jobView);
      emit(
        list,
        table(
          ['JOB', 'COMMUNITY', 'KIND', 'STATUS', 'ATTEMPTS', 'CREATED', 'FINISHED', 'OUTCOME'],
          list.map((j) => [String(j.id), j.communityId, j.kind, j.status, `${j.attempts}/${j.maxAttempts}`, j.createdAt, j.finishedAt ?? '', brief(j)]),
        ),
      );
      return 0;
    },
    async show({ services, values, args, emit }) {
      const id = positiveInteger(required(args[0], 'the job ID'), 'the job ID');
      const job = await services.jobs.findById(id, await communityOrAll(services, values.community));
      if (!job) throw new UsageError(`no job ${id}`);
      const view = jobView(job);
      emit(
        view,
        Object.entries(view)
          .map(([name, value]) => `${`${name}:`.padEnd(13)} ${typeof value === 'string' ? value : JSON.stringify(value, null, 2)}`)
          .join('\n'),
      );
      return 0;
    },
  },
};
