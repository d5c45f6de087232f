import { systemClock } from '../clock.ts';
import type { Config } from '../config/config.ts';
import { databaseTarget, openDatabase, type Database } from '../db/database.ts';
import { createServices, type Services } from '../services.ts';
import { resolveIn, UsageError, type Command, type Invocation, type Terminal } from './command.ts';

export type { Invocation } from './command.ts';
import { activityTypeCommand } from './commands/activity-type.ts';
import { auditCommand } from './commands/audit.ts';
import { backupCommand } from './commands/backup.ts';
import { buyingCommitteeCommand } from './commands/buying-committee.ts';
import { communityCommand } from './commands/community.ts';
import { customFieldCommand } from './commands/custom-field.ts';
import { dbCommand } from './commands/db.ts';
import { exportCommand } from './commands/export.ts';
import { feedCommand } from './commands/feed.ts';
import { ingestionCommand } from './commands/ingestion.ts';
import { initCommand } from './commands/init.ts';
import { insightsCommand } from './commands/insights.ts';
import { jobsCommand } from './commands/jobs.ts';
import { leadScoreCommand } from './commands/lead-score.ts';
import { objectTypeCommand } from './commands/object-type.ts';
import { objectsCommand } from './commands/objects.ts';
import { privacyCommand } from './commands/privacy.ts';
import { prospectorCommand } from './commands/prospector.ts';
import { researchCommand, researchPromptCommand } from './commands/research.ts';
import { sourceCommand } from './commands/source.ts';
import { tokenCommand } from './commands/token.ts';
import { userCommand } from './commands/user.ts';
import { webhookCommand } from './commands/webhook.ts';
import { connectorCommand } from './commands/connector.ts';
import { contactCommand } from './commands/contact.ts';

/** The commands that work on the data, each in its own file under commands/ (their help: help.ts). */
const COMMANDS: Command[] = [
  initCommand,
  communityCommand,
  tokenCommand,
  userCommand,
  sourceCommand,
  contactCommand,
  activityTypeCommand,
  privacyCommand,
  jobsCommand,
  ingestionCommand,
  objectTypeCommand,
  objectsCommand,
  customFieldCommand,
  leadScoreCommand,
  prospectorCommand,
  feedCommand,
  webhookCommand,
  connectorCommand,
  buyingCommitteeCommand,
  auditCommand,
  researchPromptCommand,
  researchCommand,
  insightsCommand,
  exportCommand,
  backupCommand,
  dbCommand,
  { name: 'migrate', run: { '': async ({ database, print }) => (print(`Migrations applied (${database.engine}).`), 0) } },
];

/**
 * Runs one command on an open database: in a `hearth` process (runLocally), or inside the embedded server
 * for another `hearth` process (command-socket.ts). Both go through here, so a command behaves the same.
 */
export async function runCommand(
  invocation: Invocation,
  { services, database, terminal }: { services: Services; database: Database; terminal: Terminal },
): Promise<number> {
  const { name, sub, values } = invocation;
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (!command) throw new UsageError(`unknown command "${name}"`);
  // `hearth jobs 12` is no subcommand: only a command that says so takes positionals alone (`hearth backup FILE`).
  const alone = sub === undefined || (command.takesArguments && !Object.hasOwn(command.run, sub));
  const subcommand = alone ? '' : sub;
  const run = Object.hasOwn(command.run, subcommand) ? command.run[subcommand] : undefined;
  if (!run) throw new UsageError(`unknown command "${`${name} ${sub ?? ''}`.trim()}"`);
  const args = alone && sub !== undefined ? [sub, ...invocation.args] : invocation.args;
  // A caller that went away (its `hearth` process was stopped) cannot be answered: nothing to do about it.
  const print = (line: string) => void terminal.out(`${line}\n`).catch(() => undefined);
  return run({
    services,
    database,
    values,
    args,
    stdin: invocation.stdin,
    terminal,
    file: (given) => resolveIn(terminal.cwd, given),
    print,
    emit: (data, human) => print(values.json ? JSON.stringify(data) : human),
  });
}

/** This process's own terminal. */
export function processTerminal(): Terminal {
  return {
    out: (text) =>
      new Promise<void>((resolve, reject) => {
        const ok = process.stdout.write(text, (error) => (error ? reject(error) : undefined));
        if (ok) resolve();
        else process.stdout.once('drain', resolve);
      }),
    err: (text) => void process.stderr.write(text),
    errIsTTY: Boolean(process.stderr.isTTY),
    cwd: process.cwd(),
    onInterrupt(handler) {
      let interrupted = false;
      const listener = () => {
        // A second Ctrl-C stops at once.
        if (interrupted) process.exit(130);
        interrupted = true;
        handler();
      };
      process.on('SIGINT', listener);
      process.on('SIGTERM', listener);
      return () => {
        process.off('SIGINT', listener);
        process.off('SIGTERM', listener);
      };
    },
  };
}

/** A command in this process: open the database (migrating it), run, close. */
export async function runLocally(config: Config, invocation: Invocation): Promise<number> {
  const label = `hearth ${[invocation.name, invocation.sub].filter(Boolean).join(' ')}`;
  if (invocation.name === 'restore') {
    const { restoreEmbedded } = await import('./commands/backup.ts');
    return restoreEmbedded(config, invocation, processTerminal(), label);
  }
  const database = await openDatabase(databaseTarget(config, label));
  try {
    const services = await createServices({ db: database.db, citus: database.citus, clock: systemClock, config });
    return await runCommand(invocation, { services, database, terminal: processTerminal() });
  } finally {
    await database.close();
  }
}
