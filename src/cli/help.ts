/**
 * Every command's and subcommand's help, apart from the commands' code: `hearth --help` loads this file
 * and nothing else (no database driver, no module), so it answers at once.
 */

export interface SubcommandHelp {
  /** `''`: the command alone (`hearth jobs`). */
  name: string;
  /** The usage line(s), without the leading `hearth `. */
  usage: string;
  /** What it does, a sentence or two. */
  about: string;
  /** The options it reads, with what each means (the common ones are listed once, in GLOBAL_OPTIONS). */
  options?: [string, string][];
}

export interface CommandHelp {
  name: string;
  summary: string;
  subcommands: SubcommandHelp[];
}

const COMMUNITY: [string, string] = ['--community com_N', 'the community to act on (default: the first one, made by `hearth init`)'];
const COMMUNITY_ALL: [string, string] = ['--community com_N', 'only this community (default: every community)'];

export const DURATION_HELP = 'DURATION: 30s, 15m, 1h, 7d, 2w, 1h30m, or ISO 8601 (PT1H, P7D)';
const WHEN = 'WHEN: an ISO date or date-time with offset (2026-11-01, 2026-11-01T09:00:00Z), or a duration back from now (7d, 1h, P7D, PT1H)';

export const HELP: CommandHelp[] = [
  {
    name: 'serve',
    summary: 'run the HTTP service',
    subcommands: [
      {
        name: '',
        usage: 'serve',
        about:
          'Runs the HTTP service (what `npm start` runs) until SIGTERM or SIGINT. On the embedded database it also answers other `hearth` commands through the socket hearth.sock in the data directory, so they work while it runs.',
      },
    ],
  },
  {
    name: 'init',
    summary: 'first-run setup',
    subcommands: [
      {
        name: '',
        usage: 'init [--json]',
        about: 'First-run setup: a community, an admin user, a source and an admin token; prints a new admin token on every call.',
      },
    ],
  },
  {
    name: 'migrate',
    summary: 'apply database migrations',
    subcommands: [
      { name: '', usage: 'migrate [--database-url URL]', about: 'Applies the database migrations and exits (every other command applies them too).' },
    ],
  },
  {
    name: 'db',
    summary: 'the database on a Citus cluster',
    subcommands: [
      {
        name: 'distribute',
        usage: 'db distribute [--database-url URL] [--json]',
        about:
          "Distributes the tables of a Citus coordinator's database by community (reference tables for those all communities share), and lists where each table lives. Idempotent; every command distributes new tables too (docs/scaling.md).",
      },
    ],
  },
  {
    name: 'community',
    summary: 'communities (tenants)',
    subcommands: [
      { name: 'create', usage: 'community create --name NAME [--json]', about: 'Creates a community.', options: [['--name NAME', 'its name']] },
      { name: 'list', usage: 'community list [--json]', about: 'Lists the communities.' },
    ],
  },
  {
    name: 'token',
    summary: 'API tokens',
    subcommands: [
      {
        name: 'create',
        usage: 'token create [--community com_N] [--scopes a,b] [--name NAME] [--expires-in DURATION] [--json]',
        about: "Issues an API token for the community's admin user; the token is shown once.",
        options: [
          ['--scopes a,b', 'its scopes (contacts:read, segments:write, read, write, admin, ...; default: read,write)'],
          ['--name NAME', 'a name to recognize it by'],
          ['--expires-in DURATION', 'its lifetime, from 1 minute to ten years (a bare number is seconds); default: no expiry'],
        ],
      },
      {
        name: 'list',
        usage: 'token list [--community com_N] [--json]',
        about: 'Lists the tokens (every community by default), with their scopes and whether they are revoked.',
        options: [COMMUNITY_ALL],
      },
      {
        name: 'revoke',
        usage: 'token revoke JTI [--json]',
        about: 'Revokes a token (by its jti, as `token list` shows it); every process refuses it at once.',
      },
    ],
  },
  {
    name: 'user',
    summary: 'web console users',
    subcommands: [
      {
        name: 'add',
        usage: 'user add EMAIL --name NAME [--role admin|member] [--community com_N] [--json]',
        about: 'Adds a console user and prints a one-time sign-in link (good for 24 hours) to choose a password.',
        options: [
          ['--name NAME', 'the name shown in the console'],
          ['--role admin|member', 'admin manages tokens, users and sources; member reads and writes data (default: member)'],
        ],
      },
      { name: 'list', usage: 'user list [--community com_N] [--json]', about: 'The console users, their roles and whether they have a password.' },
      {
        name: 'reset-password',
        usage: 'user reset-password EMAIL [--community com_N] [--json]',
        about: "Prints a one-time link to choose a new password (good for 24 hours); it voids the user's older links.",
      },
      {
        name: 'remove',
        usage: 'user remove EMAIL [--community com_N]',
        about: 'Removes the user; their sessions end at once, and the tokens made for them through the API are revoked.',
      },
    ],
  },
  {
    name: 'source',
    summary: 'sources (where pushed data comes from) and their website trackers',
    subcommands: [
      {
        name: 'create',
        usage: 'source create --name NAME [--kind api|file] [--path DIR] [--community com_N] [--json]',
        about: 'Creates a source.',
        options: [
          ['--name NAME', 'its name, unique in the community'],
          ['--kind api|file', 'api (default): data is pushed over HTTP; file: JSONL files in a folder'],
          ['--path DIR', "a file source's folder, any folder (the API may name only folders under HEARTH_FILE_SOURCE_ROOT)"],
        ],
      },
      { name: 'list', usage: 'source list [--community com_N] [--json]', about: "Lists the sources, with each one's website tracker key." },
      {
        name: 'tracker',
        usage:
          'source tracker enable|show|rotate|rotate-secret|revoke SOURCE_ID [--origins https://a.example,https://b.example] [--allow-unverified-identify true|false] [--community com_N] [--json]',
        about:
          "The source's website tracker: enable gives a public key for /t.js, the <script> snippet and the identify secret (shown once); show prints them but the secret; " +
          'rotate gives a new key and secret (the old key is refused at once); rotate-secret a new secret only; revoke turns it off.',
        options: [
          ['--origins A,B', 'enable: the only origins whose pages may send and be recorded (none: nothing is recorded)'],
          ['--allow-unverified-identify true|false', 'enable: let identify calls without a valid signature link visits to contacts (default false)'],
        ],
      },
    ],
  },
  {
    name: 'activity-type',
    summary: "the community's own activity types",
    subcommands: [
      {
        name: 'add',
        usage: 'activity-type add --id ID --name "Display name" [--category C] [--community com_N] [--json]',
        about: 'Adds an activity type that pushes may use.',
        options: [
          ['--id ID', 'its key (as pushes name it)'],
          ['--name NAME', 'its display name'],
          ['--category C', 'its category (default: other)'],
        ],
      },
      {
        name: 'list',
        usage: 'activity-type list [--community com_N] [--json]',
        about: "Lists the activity types: the default catalog and the community's own.",
      },
    ],
  },
  {
    name: 'privacy',
    summary: 'removal requests',
    subcommands: [
      {
        name: 'list',
        usage: 'privacy list [--community com_N] [--json]',
        about: 'Removal requests and their status (every community by default).',
        options: [COMMUNITY_ALL],
      },
    ],
  },
  {
    name: 'jobs',
    summary: 'background jobs',
    subcommands: [
      {
        name: '',
        usage: 'jobs [--status queued|running|completed|failed] [--community com_N] [--limit N] [--json]',
        about: 'Background jobs, newest first (every community by default): kind, status, attempts, result or error.',
        options: [['--status S', 'only jobs in this state'], COMMUNITY_ALL, ['--limit N', 'at most N jobs']],
      },
      { name: 'show', usage: 'jobs show ID [--json]', about: 'One job: payload, progress, result or error, times.' },
    ],
  },
  {
    name: 'ingestion',
    summary: 'the ingestion backlog',
    subcommands: [
      {
        name: '',
        usage: 'ingestion [--community com_N] [--json]',
        about: "The ingestion backlog of the serving processes, per community: pushes waiting, the oldest one's wait, what was stored in the last minute.",
        options: [COMMUNITY_ALL],
      },
    ],
  },
  {
    name: 'object-type',
    summary: 'custom object types',
    subcommands: [
      {
        name: 'create',
        usage: 'object-type create --name NAME [--assoc type:contact|organization|object:cot_N ...] [--community com_N] [--json]',
        about: 'Creates a custom object type.',
        options: [
          ['--name NAME', 'its name'],
          ['--assoc type:target', 'an association (repeatable): type:contact, type:organization or type:object:cot_N'],
        ],
      },
      { name: 'list', usage: 'object-type list [--community com_N] [--json]', about: 'Lists the object types and their associations.' },
    ],
  },
  {
    name: 'objects',
    summary: 'custom object records',
    subcommands: [
      {
        name: 'import',
        usage: 'objects import FILE.jsonl --type cot_N [--community com_N] [--json]',
        about:
          'Upserts one object record per line ({recordKey, name, customFields?, associations?}), by recordKey, 500 per batch; a bad line stops the import and names its number.',
        options: [['--type cot_N', 'the object type']],
      },
    ],
  },
  {
    name: 'custom-field',
    summary: 'custom fields',
    subcommands: [
      {
        name: 'add',
        usage:
          'custom-field add --name NAME --entity contact[,organization,object] --type TYPE [--values A,B,C] [--multivalue true] [--description TEXT] [--object-type cot_N] [--writers SOURCE_ID,...] [--community com_N] [--json]',
        about: 'Defines a custom field.',
        options: [
          ['--type TYPE', 'string, url, int, number, date, boolean or enum (with --values)'],
          ['--values A,B,C', "an enum's allowed values"],
          ['--multivalue true', 'an enum that holds several values (a multi-select)'],
          ['--object-type cot_N', 'with --entity object: the object type'],
          ['--writers ID,...', 'the only sources that may write it (default: any)'],
        ],
      },
      {
        name: 'list',
        usage: 'custom-field list [--all] [--community com_N] [--json]',
        about: 'Lists the custom fields.',
        options: [['--all', 'retired ones too']],
      },
      {
        name: 'update',
        usage:
          'custom-field update cf_N [--name NAME] [--type TYPE] [--values A,B] [--multivalue true|false] [--description TEXT] [--writers SOURCE_ID,... | --writers ""] [--community com_N] [--json]',
        about: 'Changes a field; a field with values keeps its type and every allowed value a record holds.',
      },
      {
        name: 'retire',
        usage: 'custom-field retire cf_N [--community com_N] [--json]',
        about: 'Stops showing, filtering and writing a field; its values stay.',
      },
    ],
  },
  {
    name: 'lead-score',
    summary: 'lead score definitions',
    subcommands: [
      {
        name: 'add',
        usage: 'lead-score add FILE.json [--name NAME] [--enabled true|false] [--primary true|false] [--community com_N] [--json]',
        about:
          'Defines a lead score: FILE.json is the body of POST /api/v2/admin/lead-scores (docs/lead-scores.md); its full recompute is a job (`hearth jobs`).',
      },
      {
        name: 'list',
        usage: 'lead-score list [--all] [--community com_N] [--json]',
        about: 'The lead scores and how they are computed.',
        options: [['--all', 'retired ones too']],
      },
      {
        name: 'update',
        usage:
          'lead-score update ls_N [FILE.json] [--name NAME] [--description TEXT] [--enabled true|false] [--primary true|false] [--community com_N] [--json]',
        about: 'Changes a lead score (FILE.json: the members that change); new rules are recomputed in full.',
      },
      {
        name: 'retire',
        usage: 'lead-score retire ls_N [--community com_N] [--json]',
        about: 'Stops computing and showing a lead score; its values are removed.',
      },
      {
        name: 'dry-run',
        usage: 'lead-score dry-run (ls_N | FILE.json) [--limit N] [--community com_N] [--json]',
        about: 'The top records a definition would score now; nothing is stored.',
        options: [['--limit N', 'how many (default 10, at most 100)']],
      },
    ],
  },
  {
    name: 'prospector',
    summary: 'prospector data (shared by every community)',
    subcommands: [
      {
        name: 'import',
        usage: 'prospector import FILE [--kind companies|contacts] [--restart] [--json]',
        about:
          'Imports prospector companies or contacts from JSON Lines or CSV (docs/prospector.md), 1,000 records per transaction; the whole file is checked first, and an interrupted import continues where it stopped when run again.',
        options: [
          ['--kind K', 'companies or contacts (default: told by the file)'],
          ['--restart', 'start over instead of continuing'],
        ],
      },
    ],
  },
  {
    name: 'feed',
    summary: 'careers boards and news feeds of organizations',
    subcommands: [
      {
        name: 'add',
        usage: 'feed add (--organization o_N | --object co_N) --kind greenhouse|lever|ashby|rss --url URL [--interval DURATION] [--community com_N] [--json]',
        about: "Fetches an organization's careers board or news feed, now and then on schedule.",
        options: [['--interval DURATION', 'how often, from 5m to 7d (default 6h; a bare number is minutes)']],
      },
      { name: 'list', usage: 'feed list [--community com_N] [--json]', about: 'The feeds and their last fetch.' },
      { name: 'fetch', usage: 'feed fetch feed_N [--community com_N] [--json]', about: 'Fetches now (a job the serving process runs).' },
      { name: 'remove', usage: 'feed remove feed_N [--community com_N] [--json]', about: 'Stops fetching; what the feed brought stays.' },
    ],
  },
  {
    name: 'contact',
    summary: 'merging contacts by hand and undoing merges (docs/ingestion.md)',
    subcommands: [
      {
        name: 'merge',
        usage: 'contact merge c_N c_M [--community com_N] [--json]',
        about: "Makes two contacts one, as a push naming both would: the older survives and takes the other's rows.",
      },
      {
        name: 'unmerge',
        usage: 'contact unmerge c_N c_MERGED [--community com_N] [--json]',
        about: 'Undoes the merge of c_MERGED into c_N: it comes back with what it brought; the two never merge again.',
      },
      { name: 'merges', usage: 'contact merges c_N [--community com_N] [--json]', about: "A contact's merge history, undone merges too." },
    ],
  },
  {
    name: 'webhook',
    summary: 'webhooks: events sent to subscribed URLs (docs/webhooks.md)',
    subcommands: [
      {
        name: 'add',
        usage:
          'webhook add --url URL --events KIND,KIND [--filter JSON|@FILE] [--filter-entity contact|activity|organization] [--description TEXT] [--community com_N] [--json]',
        about: 'Subscribes a URL to events (contact.created, activity.created, ...) and prints its signing secret, shown once.',
        options: [
          ['--events KIND,KIND', 'the event kinds to send'],
          ['--filter JSON|@FILE', "a lightFilter the events' records must pass"],
          ['--filter-entity E', 'the kind of record the filter is about (default: told by the events)'],
        ],
      },
      { name: 'list', usage: 'webhook list [--community com_N] [--json]', about: 'The webhooks and their state.' },
      {
        name: 'update',
        usage: 'webhook update wh_N [--url URL] [--events KIND,KIND] [--filter JSON|@FILE|none] [--description TEXT] [--json]',
        about: 'Changes a webhook; `--filter none` removes its filter.',
      },
      { name: 'disable', usage: 'webhook disable wh_N [--json]', about: 'Pauses deliveries; they wait.' },
      { name: 'enable', usage: 'webhook enable wh_N [--json]', about: 'Delivers again, what waited first.' },
      {
        name: 'rotate-secret',
        usage: 'webhook rotate-secret wh_N [--keep-previous DURATION] [--json]',
        about: 'Makes a new signing secret, shown once; the old one signs too for a while, so receivers can switch.',
        options: [['--keep-previous DURATION', 'how long the old secret signs too, in whole hours (default 24h; a bare number is hours; 0: not at all)']],
      },
      {
        name: 'deliveries',
        usage: 'webhook deliveries wh_N [--status pending|delivered|failed] [--limit N] [--json]\n  hearth webhook deliveries whd_N [--json]',
        about: "A webhook's deliveries, newest first; or one delivery with its attempts and its body.",
      },
      { name: 'redeliver', usage: 'webhook redeliver whd_N [--json]', about: "Sends a delivery's event again." },
      {
        name: 'replay',
        usage: 'webhook replay wh_N --since WHEN [--until WHEN] [--json]',
        about: "Sends every event of the webhook's kinds since WHEN again.",
      },
      {
        name: 'prune',
        usage: 'webhook prune --before WHEN [--community com_N] [--json]',
        about:
          'Deletes events older than WHEN, with their deliveries (every community by default); an event whose delivery is still tried stays. Pruned events cannot be replayed.',
        options: [['--before WHEN', WHEN]],
      },
    ],
  },
  {
    name: 'connector',
    summary: 'connectors: sources fed by a platform (GitHub, Discourse, Slack) through webhooks and syncs (docs/connectors.md)',
    subcommands: [
      {
        name: 'add',
        usage: 'connector add --kind KIND --settings JSON|@FILE --secrets FILE|- [--name NAME] [--community com_N] [--json]',
        about:
          'Makes a source and its connector, and starts the first sync. Secrets are read from a JSON file or standard input (`-`), never the command line; without a `webhookSecret` one is made and printed once, with the receiver URL to give the platform.',
        options: [
          ['--kind KIND', 'the platform (github, discourse, slack)'],
          ['--settings JSON|@FILE', "the kind's settings, as JSON or a file holding it"],
          ['--secrets FILE|-', 'a JSON object of the secrets by name, from a file or standard input'],
          ['--name NAME', "the source's name (default: the platform's, numbered when taken)"],
        ],
      },
      { name: 'list', usage: 'connector list [--community com_N] [--json]', about: 'The connectors, their state and the last 24 hours.' },
      {
        name: 'show',
        usage: 'connector show sig_N [--community com_N] [--json]',
        about: 'A connector: its receiver URL, settings, the names of its secrets, its streams and checkpoints.',
      },
      {
        name: 'update',
        usage: 'connector update sig_N [--name NAME] [--settings JSON|@FILE] [--secrets FILE|-] [--community com_N] [--json]',
        about: 'Renames, changes settings, or sets secrets by name (the others are kept); new secrets let a failed connector run again.',
      },
      {
        name: 'sync',
        usage: 'connector sync sig_N [--community com_N] [--json]',
        about: 'Syncs now, as a job the serving process runs (the one queued or running is answered).',
      },
      {
        name: 'pause',
        usage: 'connector pause sig_N [--community com_N] [--json]',
        about: 'Stops syncing at the next page; deliveries are still stored, and processed once resumed.',
      },
      {
        name: 'resume',
        usage: 'connector resume sig_N [--community com_N] [--json]',
        about: 'Runs a paused, failed or waiting connector again: a sync starts.',
      },
      {
        name: 'test',
        usage: 'connector test sig_N [--community com_N] [--json]',
        about: "Tries the connector's credential and settings against the platform.",
      },
      {
        name: 'remove',
        usage: 'connector remove sig_N [--community com_N] [--json]',
        about: 'Removes the connector, its checkpoints and stored deliveries; its source and data stay.',
      },
    ],
  },
  {
    name: 'buying-committee',
    summary: 'the buying committee (title classifier cells)',
    subcommands: [
      {
        name: 'set',
        usage: 'buying-committee set FILE.json [--community com_N] [--json]',
        about: 'Sets (replaces) the buying committee: {"seniorities": [{"id", "key", "name"}, ...], "departments": [...]}, each list in order.',
      },
      { name: 'show', usage: 'buying-committee show [--community com_N] [--json]', about: 'Shows the buying committee (--json prints what set takes).' },
      { name: 'remove', usage: 'buying-committee remove [--community com_N] [--json]', about: 'Removes the buying committee.' },
      { name: 'keys', usage: 'buying-committee keys [--json]', about: "The title classifier's seniority and department keys." },
    ],
  },
  {
    name: 'audit',
    summary: 'the audit log',
    subcommands: [
      {
        name: '',
        usage:
          'audit [--community com_N] [--operation OP|PREFIX*] [--actor ACTOR] [--token JTI] [--entity ID] [--since WHEN] [--until WHEN] [--limit N] [--json]',
        about: 'The audit log, newest first (every community by default): who wrote what and when, through the API or the CLI.',
        options: [
          COMMUNITY_ALL,
          ['--operation OP', 'an operation (token.create) or a prefix (token.*)'],
          ['--actor ACTOR', 'who wrote (cli:user@host, a user ID)'],
          ['--token JTI', 'writes made with this token'],
          ['--entity ID', 'writes that touched this ID'],
          ['--since WHEN, --until WHEN', WHEN],
          ['--limit N', 'at most N entries (default 50)'],
        ],
      },
      {
        name: 'prune',
        usage: 'audit prune --before WHEN [--community com_N] [--json]',
        about: 'Deletes older entries (every community by default); each community that lost some records the prune.',
        options: [['--before WHEN', WHEN]],
      },
    ],
  },
  {
    name: 'research-prompt',
    summary: 'research prompts (questions a model answers about organizations)',
    subcommands: [
      {
        name: 'add',
        usage: 'research-prompt add ID --name NAME --prompt TEXT [--primary true] [--community com_N] [--json]',
        about: 'Defines a research prompt: a question the model answers about each organization (ID: its promptId, e.g. fit).',
      },
      {
        name: 'list',
        usage: 'research-prompt list [--all] [--community com_N] [--json]',
        about: 'The research prompts.',
        options: [['--all', 'retired ones too']],
      },
      {
        name: 'update',
        usage: 'research-prompt update ID [--name NAME] [--prompt TEXT] [--primary true|false] [--community com_N] [--json]',
        about: 'Changes a prompt; a new text has the model answer again.',
      },
      { name: 'retire', usage: 'research-prompt retire ID [--community com_N] [--json]', about: "Stops showing a prompt's answers (they stay stored)." },
    ],
  },
  {
    name: 'research',
    summary: 'research answers',
    subcommands: [
      {
        name: 'import',
        usage: 'research import FILE [--community com_N] [--json]',
        about:
          'Imports research answers: JSON Lines of {organizationId or domain, promptId, answer}, in chunks of 1,000 each checked whole first (a fault names its line; nothing of its chunk is stored).',
      },
    ],
  },
  {
    name: 'insights',
    summary: 'model-written insights',
    subcommands: [
      {
        name: '',
        usage: 'insights [--community com_N] [--json]',
        about: 'Whether a model writes insights (HEARTH_LLM_URL), what it wrote, and its latest run with its progress.',
      },
      {
        name: 'refresh',
        usage: 'insights refresh [--all] [--community com_N] [--json]',
        about: 'Has the model write what is due now, as a job that a serving process runs (`hearth jobs show ID`).',
        options: [['--all', 'everything again, not only what is due']],
      },
    ],
  },
  {
    name: 'export',
    summary: 'export records as JSON Lines or CSV',
    subcommands: [
      {
        name: '',
        usage: 'export contacts|organizations|activities [--format jsonl|csv] [--out FILE] [--community com_N]',
        about:
          'Writes every record of the community in its v2 representation (every column /api/v2 offers), page by page, to FILE or stdout; progress goes to stderr.',
        options: [
          [
            '--format jsonl|csv',
            'one JSON object per line (default), or CSV with a header row (nested values as JSON; a field holding a comma, semicolon, tab, quote or line break is quoted; text that would run as a formula, also after a semicolon, tab or line break within a field, gets an apostrophe before it)',
          ],
          ['--out FILE', 'write to FILE instead of stdout, readable by this user only (mode 0600)'],
        ],
      },
    ],
  },
  {
    name: 'backup',
    summary: 'back up the embedded database',
    subcommands: [
      {
        name: '',
        usage: 'backup FILE [--json]',
        about:
          'Writes the embedded database to FILE (a gzipped tar of the data directory, as PGlite dumps it), whether or not a server runs on it, readable by this user only (mode 0600). For PostgreSQL use pg_dump (README: Backups).',
      },
    ],
  },
  {
    name: 'restore',
    summary: 'restore the embedded database from a backup',
    subcommands: [
      {
        name: '',
        usage: 'restore FILE [--json]',
        about:
          'Replaces the embedded database with the backup in FILE and applies newer migrations; the database it replaces is kept beside it (pgdata.before-restore-TIME). Stop the server first. For PostgreSQL use pg_restore (README: Backups).',
      },
    ],
  },
];

export const GLOBAL_OPTIONS: [string, string][] = [
  COMMUNITY,
  ['--json', 'print exactly one JSON line'],
  ['--database-url URL', 'PostgreSQL to use instead of DATABASE_URL'],
  ['-h, --help', 'this help; `hearth COMMAND --help`, `hearth COMMAND SUBCOMMAND --help` for one'],
];

const CONFIGURATION = `Configuration comes from the environment: DATABASE_URL (PostgreSQL) or HEARTH_DATA_DIR (embedded
database, default ./data), PORT, HOST, HEARTH_PUBLIC_URL, HEARTH_JWT_SECRET, LOG_LEVEL; HEARTH_LLM_URL,
HEARTH_LLM_MODEL and HEARTH_LLM_KEY for a model that writes insights (docs/insights.md); the README lists
every variable. Lengths of time (options and variables) are written one way: ${DURATION_HELP};
a bare number keeps the unit the README gives for it.`;

const INDENT = '      ';

/** A sentence wrapped to the terminal's usual width, each line indented. */
function wrap(text: string, indent = INDENT, width = 110): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && indent.length + line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.map((each) => indent + each).join('\n');
}

function options(list: [string, string][]): string {
  const width = Math.max(...list.map(([flag]) => flag.length)) + 2;
  return list.map(([flag, what]) => `  ${flag.padEnd(width)}${what}`).join('\n');
}

const entry = (sub: SubcommandHelp) => `  hearth ${sub.usage}\n${wrap(sub.about)}`;

export function findCommand(name: string | undefined): CommandHelp | undefined {
  return HELP.find((command) => command.name === name);
}

/** `hearth --help`: every command with its subcommands. */
export function generalHelp(): string {
  const commands = HELP.map((command) => `${command.name}: ${command.summary}\n${command.subcommands.map(entry).join('\n')}`);
  return `Usage: hearth <command> [subcommand] [options]\n\n${commands.join('\n\n')}\n\nOptions most commands take:\n${options(GLOBAL_OPTIONS)}\n\n${CONFIGURATION}`;
}

/** `hearth token --help`: one command's subcommands, with their options. */
export function commandHelp(command: CommandHelp): string {
  const subs = command.subcommands.map((sub) => `${entry(sub)}${sub.options ? `\n${options(sub.options).replace(/^/gm, '    ')}` : ''}`);
  return `hearth ${command.name}: ${command.summary}\n\n${subs.join('\n\n')}\n\nOptions most commands take:\n${options(GLOBAL_OPTIONS)}`;
}

/** `hearth token create --help`: one subcommand. */
export function subcommandHelp(command: CommandHelp, sub: SubcommandHelp): string {
  const own = sub.options ? `\n\nOptions:\n${options(sub.options)}` : '';
  return `Usage: hearth ${sub.usage}\n\n${wrap(sub.about, '')}${own}\n\nOptions most commands take:\n${options(GLOBAL_OPTIONS)}\n\nThe other ${command.name} commands: \`hearth ${command.name} --help\`.`;
}
