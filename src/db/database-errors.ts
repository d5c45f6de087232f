/**
 * A database Hearth cannot reach or open, said in one line with what to do, instead of a driver's stack
 * trace: PostgreSQL refusing, unreachable, rejecting the password, or missing the database; an embedded
 * data directory that cannot be read or written.
 */
export class DatabaseUnavailableError extends Error {}

/** The one-line explanation of a PostgreSQL connection failure, or null when it is no such failure. */
export function postgresUnavailable(error: unknown, url: string): DatabaseUnavailableError | null {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  let where = 'the server in DATABASE_URL';
  let database = 'the database';
  try {
    const parsed = new URL(url);
    where = `PostgreSQL at ${parsed.hostname || 'localhost'}:${parsed.port || '5432'}`;
    database = `"${decodeURIComponent(parsed.pathname.slice(1)) || parsed.username || 'postgres'}"`;
  } catch {
    // An unparsable URL: the driver's own message names it below.
  }
  const say = (text: string) => new DatabaseUnavailableError(text);
  switch (code) {
    case 'ECONNREFUSED':
      return say(`cannot connect to ${where}: the connection was refused. Is PostgreSQL running and listening there? Check DATABASE_URL.`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return say(`cannot connect to ${where}: the host name does not resolve. Check the host in DATABASE_URL.`);
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return say(`cannot connect to ${where}: it is unreachable (${code}). Check the host and port in DATABASE_URL and the network between.`);
    case 'ECONNRESET':
      return say(`cannot connect to ${where}: the connection was closed. Check DATABASE_URL (a TLS setting, sslmode?) and the server's log.`);
    case '3D000':
      return say(`${where} has no database ${database}. Create it (createdb ${database.replaceAll('"', '')}) or fix the database name in DATABASE_URL.`);
    case '28P01':
    case '28000':
      return say(`${where} refused the credentials in DATABASE_URL (${message ?? code}). Check the user name and password.`);
    case '57P03':
      return say(`${where} is starting up or shutting down; try again in a moment.`);
    case '53300':
      return say(`${where} has no free connection slot (too many clients). Try again, or raise max_connections.`);
    default:
      return null;
  }
}

/** The one-line explanation of an embedded data directory that cannot be used, or null. */
export function dataDirUnavailable(error: unknown, dataDir: string): DatabaseUnavailableError | null {
  const { code } = (error ?? {}) as { code?: string };
  if (code === 'EACCES' || code === 'EPERM') {
    return new DatabaseUnavailableError(
      `cannot use the data directory ${dataDir}: permission denied. Give this user read and write access to it, or set HEARTH_DATA_DIR to another directory.`,
    );
  }
  if (code === 'ENOTDIR' || code === 'EEXIST') {
    return new DatabaseUnavailableError(`cannot use the data directory ${dataDir}: it (or a parent) is not a directory. Set HEARTH_DATA_DIR to a directory.`);
  }
  if (code === 'EROFS')
    return new DatabaseUnavailableError(
      `cannot use the data directory ${dataDir}: it is on a read-only file system. Set HEARTH_DATA_DIR to a writable directory.`,
    );
  if (code === 'ENOSPC') return new DatabaseUnavailableError(`cannot use the data directory ${dataDir}: the disk is full.`);
  return null;
}

/**
 * PGlite could not open what is in the data directory (it throws Emscripten's error objects, or "failed to
 * initialize"): not a database, damaged, or of another PostgreSQL version.
 */
export function embeddedUnopenable(error: unknown, dataDir: string): DatabaseUnavailableError {
  const message = error instanceof Error ? error.message : ((error as { message?: string })?.message ?? (error as { code?: string })?.code ?? 'unknown error');
  return new DatabaseUnavailableError(
    `cannot open the embedded database in ${dataDir}/pgdata (${message}): it is not a Hearth database or it is damaged. ` +
      'Restore a backup (`hearth restore FILE`), or set HEARTH_DATA_DIR to another directory.',
  );
}
