import { parseArgs } from 'node:util';
import { systemClock } from '../clock.ts';
import { ConfigError, loadConfig } from '../config/config.ts';
import { HearthError } from '../core/errors.ts';
import { DataDirLockedError } from '../db/data-dir-lock.ts';
import { databaseTarget, openDatabase } from '../db/database.ts';
import { createServices } from '../services.ts';
import { OPTIONS, print, UsageError, type Command } from './command.ts';
import { activityTypeCommand } from './commands/activity-type.ts';
import { auditCommand } from './commands/audit.ts';
import { buyingCommitteeCommand } from './commands/buying-committee.ts';
import { communityCommand } from './commands/community.ts';
import { customFieldCommand } from './commands/custom-field.ts';
import { leadScoreCommand } from './commands/lead-score.ts';
import { feedCommand } from './commands/feed.ts';
import { webhookCommand } from './commands/webhook.ts';
import { ingestionCommand } from './commands/ingestion.ts';
import { initCommand } from './commands/init.ts';
import { jobsCommand } from './commands/jobs.ts';
import { objectTypeCommand } from './commands/object-type.ts';
import { objectsCommand } from './commands/objects.ts';
import { privacyCommand } from './commands/privacy.ts';
import { prospectorCommand } from './commands/prospector.ts';
import { runServer } from './commands/serve.ts';
import { sourceCommand } from './commands/source.ts';
import { tokenCommand } from './commands/token.ts';
import { userCommand } from './commands/user.ts';
import { insightsCommand } from './commands/insights.ts';
import { researchCommand, researchPromptCommand } from './commands/research.ts';

/** The commands that work on the data, each in its own file under commands/. */
const COMMANDS: Command[] = [
  communityCommand,
  tokenCommand,
  userCommand,
  sourceCommand,
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
  buyingCommitteeCommand,
  auditCommand,
  researchPromptCommand,
  researchCommand,
  insightsCommand,
];

const SETUP = `  serve                                   run the HTTP service (what \`npm start\` runs)
${initCommand.usage}
  migrate [--database-url URL]            apply database migrations and exit`;

const CONFIGURATION = `Configuration comes from the environment: DATABASE_URL (PostgreSQL) or HEARTH_DATA_DIR (embedded
database, default ./data), PORT, HOST, HEARTH_PUBLIC_URL, HEARTH_JWT_SECRET, LOG_LEVEL; HEARTH_LLM_URL,
HEARTH_LLM_MODEL and HEARTH_LLM_KEY for a model that writes insights (docs/insights.md).
Without --community, commands act on the first community (the one \`hearth init\` made).`;

const usage = (sections: string[]) => `Usage: hearth <command> [options]\n\n${sections.join('\n\n')}\n\n${CONFIGURATION}`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  const [name, sub, ...args] = positionals;
  const command = [initCommand, ...COMMANDS].find((candidate) => candidate.name === name);
  if (values.help || !name) {
    // `hearth <command> --help` shows that command's usage; `hearth --help` every command's.
    print(usage(command ? [command.usage] : [SETUP, ...COMMANDS.map((each) => each.usage)]));
    return name || values.help ? 0 : 2;
  }
  const config = loadConfig(values['database-url'] ? { ...process.env, DATABASE_URL: values['database-url'] } : process.env);
  if (name === 'serve') return runServer(config);
  if (name !== 'migrate' && !command) throw new UsageError(`unknown command "${name}"`);
  // `hearth jobs 12` is no subcommand: the command alone takes no positionals.
  const subcommand = command ? (command.run[sub ?? ''] ? (sub ?? '') : null) : null;
  if (command && subcommand === null) throw new UsageError(`unknown command "${`${name} ${sub ?? ''}`.trim()}"`);

  const database = await openDatabase(databaseTarget(config, `hearth ${[name, sub].filter(Boolean).join(' ')}`));
  try {
    if (!command) {
      print(`Migrations applied (${database.engine}).`);
      return 0;
    }
    const services = await createServices({ db: database.db, clock: systemClock, config });
    const emit = (data: unknown, human: string) => print(values.json ? JSON.stringify(data) : human);
    return await command.run[subcommand!]!({ services, values, args, emit, print });
  } finally {
    await database.close();
  }
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
