import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { systemClock } from '../clock.ts';
import { ConfigError, loadConfig, type Config } from '../config/config.ts';
import { DataDirLockedError } from '../db/data-dir-lock.ts';
import { databaseTarget, openDatabase } from '../db/database.ts';
import { HearthError } from '../core/errors.ts';
import type { JobRow } from '../jobs/job-queue.ts';
import { parseCoreId, parseId } from '../core/ids.ts';
import { cliActor, cliWriter } from '../core/writer.ts';
import type { AssocInput } from '../modules/objects/index.ts';
import { MAX_TOKEN_LIFETIME_SECONDS, MIN_TOKEN_LIFETIME_SECONDS } from '../modules/tokens/index.ts';
import { createServices, type Services } from '../services.ts';
import { importObjects } from './objects-import.ts';
import { terminalProgress } from './progress-bar.ts';

const USAGE = `Usage: hearth <command> [options]

  serve                                   run the HTTP service (what \`npm start\` runs)
  init [--json]                           first-run setup; prints a new admin token every time
  migrate [--database-url URL]            apply database migrations and exit

  community create --name NAME [--json]
  community list [--json]

  token create [--community com_N] [--scopes a,b] [--name NAME] [--expires-in SECONDS] [--json]
  token list [--community com_N] [--json]
  token revoke JTI

  source create --name NAME [--community com_N] [--kind api|file] [--path DIR] [--json]
  source list [--community com_N] [--json]

  activity-type add --id ID --name "Display name" [--category C] [--community com_N] [--json]
  activity-type list [--community com_N] [--json]

  privacy list [--community com_N] [--json]   removal requests and their status (every community by default)

  jobs [--status queued|running|completed|failed] [--community com_N] [--limit N] [--json]
                                          background jobs, newest first (every community by default)
  jobs show ID [--json]                   one job: payload, progress, result or error
  object-type create --name NAME [--assoc type:contact|organization|object:cot_N ...] [--community com_N] [--json]
  object-type list [--community com_N] [--json]
  objects import FILE.jsonl --type cot_N [--community com_N] [--json]
                                          upserts one object record per line, by recordKey, 500 per batch

  audit [--community com_N] [--operation OP|PREFIX*] [--actor ACTOR] [--token JTI] [--entity ID]
        [--since WHEN] [--until WHEN] [--limit N] [--json]
                                          the audit log, newest first (every community by default): who
                                          wrote what and when, through the API or the CLI. WHEN is an ISO
                                          date or date-time with offset, or a duration back from now (P7D)
  audit prune --before WHEN [--community com_N] [--json]
                                          deletes older entries (every community by default); each
                                          community that lost some records the prune

Configuration comes from the environment: DATABASE_URL (PostgreSQL) or HEARTH_DATA_DIR (embedded
database, default ./data), PORT, HOST, HEARTH_PUBLIC_URL, HEARTH_JWT_SECRET, LOG_LEVEL.
Without --community, commands act on the first community (the one \`hearth init\` made).`;

const OPTIONS = {
  json: { type: 'boolean' },
  name: { type: 'string' },
  community: { type: 'string' },
  scopes: { type: 'string' },
  'expires-in': { type: 'string' },
  kind: { type: 'string' },
  path: { type: 'string' },
  id: { type: 'string' },
  category: { type: 'string' },
  status: { type: 'string' },
  limit: { type: 'string' },
  type: { type: 'string' },
  assoc: { type: 'string', multiple: true },
  operation: { type: 'string' },
  actor: { type: 'string' },
  token: { type: 'string' },
  entity: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  before: { type: 'string' },
  'database-url': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Options = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

class UsageError extends Error {}

const print = (line: string) => process.stdout.write(`${line}\n`);

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  const [command, sub, ...rest] = positionals;
  if (values.help || !command) {
    print(USAGE);
    return command || values.help ? 0 : 2;
  }
  const config = loadConfig(values['database-url'] ? { ...process.env, DATABASE_URL: values['database-url'] } : process.env);

  if (command === 'serve') return runServer(config);
  const label = `hearth ${[command, sub].filter(Boolean).join(' ')}`;
  const database = await openDatabase(databaseTarget(config, label));
  try {
    if (command === 'migrate') {
      print(`Migrations applied (${database.engine}).`);
      return 0;
    }
    const services = await createServices({ db: database.db, clock: systemClock, config });
    return await runCommand(services, command, sub, rest, values);
  } finally {
    await database.close();
  }
}

async function runCommand(services: Services, command: string, sub: string | undefined, rest: string[], values: Options): Promise<number> {
  const json = values.json ?? false;
  const emit = (data: object, human: string) => print(json ? JSON.stringify(data) : human);
  const key = `${command} ${sub ?? ''}`.trim();

  switch (key) {
    case 'init': {
      const setup = await services.communities.init(cliActor());
      emit(
        { communityId: `com_${setup.communityId}`, sourceId: setup.sourceId, token: setup.token },
        `Community com_${setup.communityId}, source ${setup.sourceId}.\nToken (shown once): ${setup.token}`,
      );
      return 0;
    }
    case 'community create': {
      const { communityId } = await services.communities.create(required(values.name, '--name'), cliActor());
      emit({ communityId: `com_${communityId}` }, `Created community com_${communityId}.`);
      return 0;
    }
    case 'community list': {
      const list = await services.communities.list();
      emit(
        list.map((c) => ({ communityId: `com_${c.id}`, name: c.name, createdAt: c.createdAt.toISOString() })),
        table(list.map((c) => [`com_${c.id}`, c.name])),
      );
      return 0;
    }
    case 'token create': {
      const communityId = await community(services, values.community);
      const issued = await services.tokens.issue(cliWriter(communityId), {
        scopes: values.scopes?.split(','),
        name: values.name,
        appUserId: await services.communities.adminOf(communityId),
        expiresInSeconds: values['expires-in'] ? tokenLifetime(values['expires-in']) : undefined,
      });
      emit(issued, `Token (shown once): ${issued.token}\njti: ${issued.jti}`);
      return 0;
    }
    case 'token list': {
      const communityId = values.community ? await community(services, values.community) : null;
      const list = await services.tokens.list(communityId);
      emit(
        list.map((t) => ({ ...t, communityId: `com_${t.communityId}` })),
        table(list.map((t) => [t.jti, `com_${t.communityId}`, t.name, t.scopes.join(' '), t.revokedAt ? 'revoked' : 'active'])),
      );
      return 0;
    }
    case 'token revoke': {
      const jti = required(rest[0], 'the JTI to revoke');
      const revoked = await services.tokens.revoke(cliWriter(await services.tokens.communityOf(jti)), jti);
      emit({ jti: revoked.jti, revokedAt: revoked.revokedAt }, `Revoked ${revoked.jti}.`);
      return 0;
    }
    case 'source create': {
      const source = await services.sources.create(cliWriter(await community(services, values.community)), {
        name: required(values.name, '--name'),
        kind: sourceKind(values.kind),
        path: values.path ?? null,
      });
      emit({ sourceId: source.id }, `Created source ${source.id} ("${source.name}", ${source.kind}).`);
      return 0;
    }
    case 'source list': {
      const list = await services.sources.list(await community(services, values.community));
      emit(
        list.map((s) => ({ sourceId: s.id, name: s.name, kind: s.kind, path: s.path, visible: s.visible })),
        table(list.map((s) => [String(s.id), s.name, s.kind, s.path ?? ''])),
      );
      return 0;
    }
    case 'activity-type add': {
      const entry = await services.activityTypes.add(cliWriter(await community(services, values.community)), {
        id: required(values.id, '--id'),
        displayName: required(values.name, '--name'),
        category: values.category,
      });
      emit(entry, `Added activity type ${entry.id} ("${entry.displayName}").`);
      return 0;
    }
    case 'activity-type list': {
      const list = await services.activityTypes.list(await community(services, values.community));
      emit(list, table(list.map((t) => [t.id, t.displayName, t.category])));
      return 0;
    }
    case 'privacy list': {
      const communityId = values.community ? await community(services, values.community) : null;
      const list = (await services.privacy.list(communityId)).map((r) => ({
        id: r.id,
        communityId: `com_${r.communityId}`,
        status: r.status,
        email: r.email,
        requestedAt: r.requestedAt.toISOString(),
        deadlineAt: r.deadlineAt.toISOString(),
        completedAt: r.completedAt?.toISOString() ?? null,
        erased: r.erased,
      }));
      emit(
        list,
        table(list.map((r) => [String(r.id), r.communityId, r.status, r.email ?? '(erased)', r.requestedAt, r.deadlineAt, r.completedAt ?? '', erasedSummary(r.erased)])),
      );
      return 0;
    }
    case 'jobs': {
      const communityId = values.community ? await community(services, values.community) : null;
      const list = (
        await services.jobs.list({
          communityId,
          status: jobStatus(values.status),
          limit: values.limit ? positiveInteger(values.limit, '--limit') : undefined,
        })
      ).map(jobView);
      emit(
        list,
        table(list.map((j) => [String(j.id), j.communityId, j.kind, j.status, `${j.attempts}/${j.maxAttempts}`, j.createdAt, j.finishedAt ?? '', brief(j)])),
      );
      return 0;
    }
    case 'jobs show': {
      const id = positiveInteger(required(rest[0], 'the job ID'), 'the job ID');
      const job = await services.jobs.findById(id, values.community ? await community(services, values.community) : null);
      if (!job) throw new UsageError(`no job ${id}`);
      const view = jobView(job);
      emit(view, Object.entries(view).map(([name, value]) => `${`${name}:`.padEnd(13)} ${typeof value === 'string' ? value : JSON.stringify(value, null, 2)}`).join('\n'));
      return 0;
    }
    case 'object-type create': {
      const type = await services.objectTypeAdmin.create(cliWriter(await community(services, values.community)), {
        name: required(values.name, '--name'),
        assocs: (values.assoc ?? []).map(parseAssoc),
      });
      const assocs = type.assocs.length ? ` with associations ${type.assocs.map(describeAssoc).join(', ')}` : '';
      emit(type, `Created object type ${type.id} ("${type.name}")${assocs}.`);
      return 0;
    }
    case 'object-type list': {
      const list = await services.objectTypes.list(await community(services, values.community));
      emit(list, table(list.map((type) => [type.id, type.name, type.assocs.map(describeAssoc).join(' ')])));
      return 0;
    }
    case 'objects import': {
      const file = required(rest[0], 'the JSONL file to import');
      const communityId = await community(services, values.community);
      const objectTypeId = required(values.type, '--type');
      parseId('object_type', objectTypeId);
      if (!(await services.objectTypes.list(communityId)).some((type) => type.id === objectTypeId)) {
        throw new UsageError(`no object type ${objectTypeId} in com_${communityId} (\`hearth object-type list\` shows them)`);
      }
      try {
        if (!fs.statSync(file).isFile()) throw new UsageError(`${file} is not a file`);
      } catch (error) {
        if (error instanceof UsageError) throw error;
        throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
      }
      const progress = process.stderr.isTTY ? terminalProgress(process.stderr) : null;
      const outcome = await importObjects(services.objectUpserts, { writer: cliWriter(communityId), objectTypeId, file }, { progress });
      const { totals } = outcome;
      const counts = `${totals.created} created, ${totals.updated} updated, ${totals.batches} batch${totals.batches === 1 ? '' : 'es'}`;
      if (outcome.ok) {
        emit({ objectTypeId, ...totals }, `Imported ${totals.records} records from ${file} into ${objectTypeId}: ${counts}.`);
        return 0;
      }
      if (json) print(JSON.stringify({ objectTypeId, ...totals, problems: outcome.problems }));
      const written = totals.batches
        ? `Written before the stop: ${totals.records} records from lines 1-${totals.writtenThroughLine} (${counts})`
        : 'Nothing was written';
      process.stderr.write(
        `hearth: objects import stopped:\n${outcome.problems.map((problem) => `  ${problem}\n`).join('')}` +
          `${written}; nothing from line ${totals.writtenThroughLine + 1} on was written.\n`,
      );
      return 1;
    }
    case 'audit': {
      const communityId = values.community ? await community(services, values.community) : null;
      const list = await services.audit.latest(
        communityId,
        { operation: values.operation, actor: values.actor, tokenId: values.token, entityId: values.entity, since: values.since, until: values.until },
        values.limit ? positiveInteger(values.limit, '--limit') : 50,
      );
      emit(list, table(list.map((e) => [e.id, e.at, e.communityId, e.actor, e.operation, idsSummary(e.entityIds), e.tokenId ?? ''])));
      return 0;
    }
    case 'audit prune': {
      const communityId = values.community ? await community(services, values.community) : null;
      const pruned = await services.audit.prune(communityId, required(values.before, '--before'), cliActor());
      emit({ before: pruned.before.toISOString(), deleted: pruned.deleted }, `Deleted ${pruned.deleted} audit entries from before ${pruned.before.toISOString()}.`);
      return 0;
    }
    default:
      throw new UsageError(`unknown command "${key}"`);
  }
}

async function community(services: Services, given: string | undefined): Promise<number> {
  if (given !== undefined) {
    const id = parseCoreId('community', given);
    if (!(await services.communities.find(id))) throw new UsageError(`no community ${given}`);
    return id;
  }
  const first = (await services.communities.list())[0];
  if (!first) throw new UsageError('there is no community yet: run `hearth init` first');
  return first.id;
}

function required(value: string | undefined, what: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`${what} is required`);
  return value;
}

function tokenLifetime(value: string): number {
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds < MIN_TOKEN_LIFETIME_SECONDS || seconds > MAX_TOKEN_LIFETIME_SECONDS) {
    throw new UsageError(`--expires-in must be a whole number of seconds from ${MIN_TOKEN_LIFETIME_SECONDS} to ${MAX_TOKEN_LIFETIME_SECONDS} (ten years)`);
  }
  return seconds;
}

function positiveInteger(value: string, what: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0) throw new UsageError(`${what} must be a positive integer`);
  return number;
}

function sourceKind(value: string | undefined): 'api' | 'file' | undefined {
  if (value === undefined || value === 'api' || value === 'file') return value;
  throw new UsageError('--kind must be api or file');
}

const JOB_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;

function jobStatus(value: string | undefined): JobRow['status'] | undefined {
  if (value === undefined || (JOB_STATUSES as readonly string[]).includes(value)) return value as JobRow['status'] | undefined;
  throw new UsageError(`--status must be one of ${JOB_STATUSES.join(', ')}`);
}

function jobView(job: JobRow) {
  return {
    id: job.id,
    communityId: `com_${job.communityId}`,
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
  };
}

/** One line's worth of a job: its error, else its result, else its progress (`jobs show` has all of it). */
function brief(job: ReturnType<typeof jobView>): string {
  const text = job.error ?? JSON.stringify(job.result ?? job.progress);
  return text.length > 100 ? `${text.slice(0, 99)}…` : text;
}

/** `--assoc type:target` or `type:object:cot_N`, as the object type route takes it. */
function parseAssoc(given: string): AssocInput {
  const [objectAssocType, targetEntity, targetObjectTypeId, ...more] = given.split(':');
  if (!objectAssocType || !targetEntity || more.length) throw new UsageError(`--assoc "${given}" must be type:target or type:object:cot_N`);
  return { objectAssocType, targetEntity, targetObjectTypeId: targetObjectTypeId ?? null };
}

function describeAssoc(assoc: { objectAssocType: string; targetEntity: string; targetObjectTypeId: string | null }): string {
  return [assoc.objectAssocType, assoc.targetEntity, assoc.targetObjectTypeId].filter(Boolean).join(':');
}

function erasedSummary(erased: Record<string, number | undefined>): string {
  return Object.entries(erased)
    .map(([what, count]) => `${what}=${count ?? 0}`)
    .join(' ');
}

/** A few IDs for a table cell; `--json` has them all. */
function idsSummary(ids: string[]): string {
  return ids.length > 4 ? `${ids.slice(0, 4).join(' ')} +${ids.length - 4} more` : ids.join(' ');
}

function table(rows: string[][]): string {
  if (rows.length === 0) return '(none)';
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd()).join('\n');
}

async function runServer(config: Config): Promise<number> {
  // Listen for signals from the start: one that arrives while starting stops the server once it is up,
  // so the database is closed and the data directory unlocked either way.
  let stopRequested: string | null = null;
  let onSignal: (signal: string) => void = (signal) => {
    stopRequested = signal;
  };
  for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => onSignal(signal));

  // Loaded here, so the other commands do not load the web server.
  const { serve } = await import('../main.ts');
  const server = await serve(config, print);
  await new Promise<void>((resolve) => {
    let signals = 0;
    onSignal = (signal) => {
      signals += 1;
      if (signals > 1) {
        server.app.log.warn(`second ${signal}: exiting without waiting`);
        process.exit(1);
      }
      server.app.log.info(`${signal}: finishing requests in flight, then stopping`);
      server.stop().then(resolve, (error: unknown) => {
        server.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
    };
    if (stopRequested) onSignal(stopRequested);
  });
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const known =
      error instanceof DataDirLockedError ||
      error instanceof ConfigError ||
      error instanceof UsageError ||
      error instanceof HearthError ||
      (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    process.stderr.write(`hearth: ${known ? (error as Error).message : (error as Error)?.stack ?? String(error)}\n`);
    if (error instanceof UsageError) process.stderr.write('Run `hearth --help` for usage.\n');
    process.exitCode = known ? 1 : 70;
  },
);
