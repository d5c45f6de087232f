// The `hearth` command's front: arguments, help, and where the command runs. Help needs nothing else, so
// this file imports only what `--help` needs (help.ts); the commands and the database load afterwards.
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/config.ts';
import { DataDirLockedError } from '../db/data-dir-lock.ts';
import { checkDataDir } from '../db/data-dir.ts';
import { OPTIONS, print, UsageError } from './command.ts';
import { describeFailure } from './failure.ts';
import { commandHelp, findCommand, generalHelp, subcommandHelp } from './help.ts';
import { commandSocketPath } from './socket-path.ts';

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  const [name, sub, ...args] = positionals;
  const help = findCommand(name);
  if (name !== undefined && !help) throw new UsageError(`unknown command "${name}"`);
  if (values.help || !help) {
    const subHelp = help?.subcommands.find((candidate) => candidate.name !== '' && candidate.name === sub);
    print(!help ? generalHelp() : subHelp ? subcommandHelp(help, subHelp) : commandHelp(help));
    return name || values.help ? 0 : 2;
  }
  const config = loadConfig(values['database-url'] ? { ...process.env, DATABASE_URL: values['database-url'] } : process.env);
  if (name === 'serve') {
    const { runServer } = await import('./commands/serve.ts');
    return runServer(config);
  }
  // Secrets come from a file or from standard input, read here (the command may run in the server's process).
  const stdin = values.secrets === '-' ? await readStdin() : undefined;
  const invocation = { name: name!, sub, args, values, ...(stdin === undefined ? {} : { stdin }) };
  // The embedded database is one process's: while a server holds it, the server runs the command.
  const throughServer = config.databaseUrl === null && name !== 'restore';
  if (throughServer) {
    // A directory this user does not own, or that others may enter, is refused before anything is sent
    // through a socket in it.
    checkDataDir(config.dataDir);
    const { runThroughServer } = await import('./remote.ts');
    const code = await runThroughServer(commandSocketPath(config.dataDir), invocation);
    if (code !== null) return code;
  }
  const { runLocally } = await import('./run.ts');
  try {
    return await runLocally(config, invocation);
  } catch (error) {
    // A server that is starting holds the directory before it listens for commands: wait for it.
    if (!throughServer || !(error instanceof DataDirLockedError) || error.holder.command !== 'hearth serve') throw error;
    const { runThroughServer } = await import('./remote.ts');
    for (const deadline = Date.now() + SERVER_START_WAIT_MS; Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const code = await runThroughServer(commandSocketPath(config.dataDir), invocation);
      if (code !== null) return code;
    }
    throw error;
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** How long a command waits for a server that holds the data directory to start answering commands. */
const SERVER_START_WAIT_MS = 30_000;

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const failure = describeFailure(error);
    process.stderr.write(failure.text);
    process.exitCode = failure.code;
  },
);
