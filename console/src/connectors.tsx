import type { components } from '@hearth/client';
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { hearth, ok, type Data, type Outcome } from './api.ts';
import { fieldId, SchemaFields } from './schema-form.tsx';
import { formOf, initialValues, valuesToBody, withoutFields, type FormSpec, type FormValues, type JsonSchema } from './schema-values.ts';
import { CopyText, ErrorNotice, Field, formatDate, Loading, Notice, Page, useApi, Value } from './ui.tsx';

type Message = { kind: 'ok' | 'error'; text: string } | null;

/** A connector as `GET /api/v2/admin/connectors` answers it: secrets only by name, never their values. */
type Connector = components['schemas']['Connector'];
/** A connector's settings, or secrets, by name: their shapes are the kind's (`GET /api/v2/admin/connector-kinds`). */
type Values = Record<string, unknown>;

function settingsOf(connector: Connector): Values {
  return typeof connector.settings === 'object' && connector.settings !== null ? (connector.settings as Values) : {};
}

/** A platform the server offers (`GET /api/v2/admin/connector-kinds`): its name, the JSON Schemas of its settings and secrets, its webhooks. */
type ConnectorKind = components['schemas']['ConnectorKind'];

/**
 * The platforms with forms written for them (a choice of credential, what to keep, the webhook's steps); every
 * other kind's form is made from its schemas.
 */
const WRITTEN_FORMS = new Set(['github', 'discourse']);

function platformName(kinds: ConnectorKind[] | null, kind: string): string {
  return kinds?.find((offered) => offered.kind === kind)?.platformName ?? kind;
}

/** The platform takes a webhook secret chosen by its admin (GitHub's, Discourse's webhook settings): this page makes one. */
function makesWebhookSecret(kind: ConnectorKind): boolean {
  return kind.receives && !kind.platformIssuesWebhookSecret;
}

/** A kind's settings and secrets as fields; the webhook secret is left out when this page makes it. */
function formsOf(kind: ConnectorKind): { settings: FormSpec; secrets: FormSpec } {
  const secrets = formOf(kind.secretsSchema as JsonSchema);
  return { settings: formOf(kind.settingsSchema as JsonSchema), secrets: makesWebhookSecret(kind) ? withoutFields(secrets, ['webhookSecret']) : secrets };
}

/** Whether "Edit credentials" has anything to offer: a secret to set, or a webhook secret to make. */
function hasCredentials(kind: ConnectorKind): boolean {
  return WRITTEN_FORMS.has(kind.kind) || makesWebhookSecret(kind) || formsOf(kind).secrets.fields.length > 0;
}

/** Moves the focus to the field found wrong, so the person lands where the message points. */
function focusField(id: string) {
  window.setTimeout(() => document.getElementById(id)?.focus(), 0);
}

/** How often the connectors' state is read again while the page is open. */
const REFRESH_MS = 3000;

const DEFAULT_GITHUB_API = 'https://api.github.com';

/**
 * The webhook's signing secret, made here (32 random bytes, hex): the person pastes it into the platform,
 * and the server, which keeps it sealed, never answers it back.
 */
function newWebhookSecret(): string {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** A time today as a time of day; another day with its date. */
function formatMoment(value: string | null): string {
  if (!value) return '—';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  return date.toDateString() === new Date().toDateString() ? date.toLocaleTimeString() : formatDate(value);
}

/** The connector's state in words. */
export function stateInWords(connector: Connector): string {
  switch (connector.state) {
    case 'active':
      return 'active';
    case 'backfilling':
      return 'backfilling';
    case 'waiting':
      return `waiting for the rate limit until ${formatMoment(connector.waitingUntil)}`;
    case 'paused':
      return 'paused';
    case 'failed':
      return `failed: ${connector.reason ?? 'no reason given'}`;
    default:
      return String(connector.state);
  }
}

/** A heading that takes the focus when it appears (a form opening, the secret shown), so screen readers announce it. */
function FocusedHeading(props: { id: string; level: 2 | 4; children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const Tag = props.level === 2 ? 'h2' : 'h4';
  return (
    <Tag id={props.id} tabIndex={-1} ref={heading}>
      {props.children}
    </Tag>
  );
}

/** Reads what `load` asks for now and every REFRESH_MS, keeping what it last read when a read fails (a restart, a lost network). */
function usePolled<O extends Outcome>(load: () => Promise<O>) {
  const [data, setData] = useState<Data<O> | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    ok(load()).then(
      (answer) => {
        if (!live) return;
        setData(answer);
        setError(null);
      },
      (failure: unknown) => live && setError(failure),
    );
    return () => {
      live = false;
    };
  }, [tick]);
  const reload = useCallback(() => setTick((value) => value + 1), []);
  useEffect(() => {
    const timer = window.setInterval(reload, REFRESH_MS);
    return () => window.clearInterval(timer);
  }, [reload]);
  return { data, error, reload };
}

export function SourcesPage() {
  const connectors = usePolled(() => hearth.GET('/api/v2/admin/connectors'));
  const sources = useApi(() => hearth.GET('/api/v2/admin/sources'), []);
  const kinds = useApi(() => hearth.GET('/api/v2/admin/connector-kinds'), []);
  const [adding, setAdding] = useState(false);
  const [created, setCreated] = useState<{ connector: Connector; webhookSecret: string | null } | null>(null);
  const reload = () => {
    connectors.reload();
    sources.reload();
  };
  const offered = kinds.data?.data ?? null;
  const connectorSources = new Set((connectors.data?.data ?? []).map((connector) => connector.sourceId));
  const pushSources = (sources.data?.data ?? []).filter((source) => !connectorSources.has(source.sourceId));
  return (
    <Page
      title="Sources"
      actions={
        adding ? null : (
          <button
            type="button"
            class="primary"
            onClick={() => {
              setAdding(true);
              setCreated(null);
            }}
          >
            Add a connector
          </button>
        )
      }
    >
      {adding && !offered ? kinds.error ? <ErrorNotice error={kinds.error} /> : <Loading /> : null}
      {adding && offered?.length === 0 ? <Notice kind="info">This server offers no connector (GET /api/v2/admin/connector-kinds lists none).</Notice> : null}
      {adding && offered && offered.length > 0 ? (
        <AddConnector
          kinds={offered}
          onCancel={() => setAdding(false)}
          onCreated={(connector, webhookSecret) => {
            setAdding(false);
            setCreated({ connector, webhookSecret });
            reload();
          }}
        />
      ) : null}
      {created?.connector.receiverUrl ? (
        <WebhookSetup
          connector={created.connector}
          platform={platformName(offered, created.connector.kind)}
          webhookSecret={created.webhookSecret}
          onDone={() => setCreated(null)}
        />
      ) : null}
      {created && !created.connector.receiverUrl ? (
        <Notice kind="ok">
          Added {created.connector.name}: its first sync (the backfill) is queued. {platformName(offered, created.connector.kind)} sends no webhooks, so there
          is nothing to set up there: Hearth reads what is new by regular syncs.
        </Notice>
      ) : null}
      <section aria-labelledby="connectors-title">
        <h2 id="connectors-title">Connectors</h2>
        <p class="muted">
          A connector reads a platform’s history, then keeps up by the platform’s webhooks, or by regular syncs for a platform without them. Its state is read
          again every few seconds while this page is open.
        </p>
        <ErrorNotice error={connectors.error} />
        {connectors.data?.data.length === 0 ? (
          <p class="muted">
            No connector yet: “Add a connector” follows{' '}
            {offered && offered.length > 0 ? `a platform this server offers (${offered.map((kind) => kind.platformName).join(', ')})` : 'a platform'}.
          </p>
        ) : null}
        {(connectors.data?.data ?? []).map((connector) => (
          <ConnectorCard key={connector.id} connector={connector} kinds={offered} onChanged={reload} />
        ))}
      </section>
      <section aria-labelledby="push-sources-title">
        <h2 id="push-sources-title">Push sources</h2>
        <PushSources sources={pushSources} error={sources.error} onCreated={sources.reload} />
      </section>
    </Page>
  );
}

/** `kinds`: the server's (null while they load). */
function ConnectorCard(props: { connector: Connector; kinds: ConnectorKind[] | null; onChanged: () => void }) {
  const connector = props.connector;
  const [message, setMessage] = useState<Message>(null);
  const [editing, setEditing] = useState(false);
  const [rotated, setRotated] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const kind = props.kinds?.find((offered) => offered.kind === connector.kind);
  const platform = platformName(props.kinds, connector.kind);
  const act = async (work: () => Promise<string>) => {
    setBusy(true);
    try {
      setMessage({ kind: 'ok', text: await work() });
      props.onChanged();
    } catch (error) {
      setMessage({ kind: 'error', text: errorText(error) });
    } finally {
      setBusy(false);
    }
  };
  const byId = { params: { path: { id: connector.id } } };
  // Resuming a waiting connector goes on at once instead of at the platform's time (which may refuse again).
  const resumable = connector.state === 'paused' || connector.state === 'failed' || connector.state === 'waiting';
  return (
    <section class="card connector" aria-labelledby={`connector-${connector.id}`}>
      <h3 id={`connector-${connector.id}`}>
        {connector.name}{' '}
        <small class="muted">
          ({platform}, source {connector.sourceId})
        </small>
      </h3>
      <p class={`state state-${connector.state}`}>
        State: <strong>{stateInWords(connector)}</strong>
        {connector.state !== 'failed' && connector.reason ? <span class="muted"> ({connector.reason})</span> : null}
      </p>
      <Streams connector={connector} />
      <dl>
        <div>
          <dt>Last event received</dt>
          <dd>{connector.lastEventAt ? formatDate(connector.lastEventAt) : 'none yet'}</dd>
        </div>
        <div>
          <dt>Last sync</dt>
          <dd>{connector.lastSyncAt ? formatDate(connector.lastSyncAt) : 'not yet'}</dd>
        </div>
        <div>
          <dt>Last 24 hours</dt>
          <dd>
            {plural(connector.last24h.deliveries, 'event')} received, {plural(connector.last24h.records, 'record')} stored
          </dd>
        </div>
        <div>
          <dt>Receiver URL</dt>
          <dd>{connector.receiverUrl ? <code>{connector.receiverUrl}</code> : 'none: the platform sends no webhooks, it is read by syncs'}</dd>
        </div>
        <div>
          <dt>Settings</dt>
          <dd>
            <Value value={connector.settings} />
          </dd>
        </div>
        <div>
          <dt>Secrets set</dt>
          <dd>{connector.secrets.length ? connector.secrets.join(', ') : 'none'}</dd>
        </div>
      </dl>
      <div class="actions">
        {resumable ? (
          <button
            type="button"
            disabled={busy}
            onClick={() => act(async () => (await ok(hearth.POST('/api/v2/admin/connectors/{id}/resume', byId)), `Resumed ${connector.name}.`))}
          >
            Resume<span class="visually-hidden"> {connector.name}</span>
          </button>
        ) : null}
        {connector.state === 'paused' ? null : (
          <button
            type="button"
            disabled={busy}
            onClick={() =>
              act(
                async () => (
                  await ok(hearth.POST('/api/v2/admin/connectors/{id}/pause', byId)),
                  `Paused ${connector.name}: no sync runs; webhook deliveries are kept and processed when it resumes.`
                ),
              )
            }
          >
            Pause<span class="visually-hidden"> {connector.name}</span>
          </button>
        )}
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            act(async () => {
              const started = await ok(hearth.POST('/api/v2/admin/connectors/{id}/sync', byId));
              return started.data.created === false
                ? `A sync of ${connector.name} is already queued or running (job ${started.data.jobId}).`
                : `A sync of ${connector.name} is queued (job ${started.data.jobId}).`;
            })
          }
        >
          Sync now<span class="visually-hidden"> {connector.name}</span>
        </button>
        <button
          type="button"
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            try {
              const tried = await ok(hearth.POST('/api/v2/admin/connectors/{id}/test', byId));
              setMessage({ kind: tried.data.ok ? 'ok' : 'error', text: tried.data.message });
            } catch (error) {
              setMessage({ kind: 'error', text: errorText(error) });
            } finally {
              setBusy(false);
            }
          }}
        >
          Test connection<span class="visually-hidden"> of {connector.name}</span>
        </button>
        {kind && hasCredentials(kind) ? (
          <button type="button" aria-expanded={editing} onClick={() => setEditing(!editing)}>
            Edit credentials<span class="visually-hidden"> of {connector.name}</span>
          </button>
        ) : null}
        <button
          type="button"
          class="danger"
          disabled={busy}
          onClick={() => {
            if (
              !window.confirm(
                `Remove the connector “${connector.name}”? Hearth stops reading ${platform} and refuses its webhooks; the source and the data it brought stay.`,
              )
            )
              return;
            void act(
              async () => (
                await ok(hearth.DELETE('/api/v2/admin/connectors/{id}', byId)),
                `Removed the connector ${connector.name}; its source and data stay.`
              ),
            );
          }}
        >
          Remove<span class="visually-hidden"> {connector.name}</span>
        </button>
      </div>
      {/* The API refuses changes to a connector of a kind the server does not know (a platform taken out of its build). */}
      {props.kinds && !kind ? (
        <p class="muted">This server no longer offers {connector.kind} connectors: their credentials and settings cannot be changed.</p>
      ) : null}
      {message ? <Notice kind={message.kind}>{message.text}</Notice> : null}
      {editing && kind ? (
        <EditCredentials
          connector={connector}
          kind={kind}
          onCancel={() => setEditing(false)}
          onSaved={(webhookSecret) => {
            setEditing(false);
            setRotated(webhookSecret);
            setMessage({ kind: 'ok', text: `Saved the credentials of ${connector.name}.${connector.state === 'failed' ? ' It resumes now.' : ''}` });
            props.onChanged();
          }}
        />
      ) : null}
      {rotated ? <WebhookSetup connector={connector} platform={platform} webhookSecret={rotated} onDone={() => setRotated(null)} /> : null}
    </section>
  );
}

function Streams(props: { connector: Connector }) {
  const streams = props.connector.streams;
  if (streams.length === 0) return <p class="muted">No stream read yet.</p>;
  return (
    <table>
      <caption class="visually-hidden">Streams of {props.connector.name}</caption>
      <thead>
        <tr>
          <th scope="col">Stream</th>
          <th scope="col">Records</th>
          <th scope="col">Status</th>
          <th scope="col">Updated</th>
        </tr>
      </thead>
      <tbody>
        {streams.map((stream) => (
          <tr key={stream.stream}>
            <td>
              <code>{stream.stream}</code>
            </td>
            <td>
              {stream.total !== null && stream.total > 0 && !stream.done ? (
                <>
                  <progress
                    max={stream.total}
                    value={Math.min(stream.records, stream.total)}
                    aria-label={`${stream.stream}: ${stream.records} of ${stream.total}`}
                  />{' '}
                </>
              ) : null}
              {/* Out of the platform's total while reading; once caught up, later syncs add to the count, so the total no longer compares. */}
              {stream.total === null || stream.done ? stream.records : `${stream.records} / ${stream.total}`}
            </td>
            <td>{stream.done ? 'caught up' : 'reading'}</td>
            <td>{formatDate(stream.updatedAt)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * The receiver URL, and the webhook secret this page made, once: the server keeps the secret sealed and never
 * shows it again. A platform that issues its own signing secret (Slack) was given it in the form: only the URL
 * is left to paste there.
 */
function WebhookSetup(props: { connector: Connector; platform: string; webhookSecret: string | null; onDone: () => void }) {
  const { connector, platform } = props;
  return (
    <section class="card reveal" aria-labelledby={`webhook-${connector.id}`}>
      <FocusedHeading id={`webhook-${connector.id}`} level={2}>
        Set up the webhook of {connector.name}
      </FocusedHeading>
      {props.webhookSecret ? (
        <Notice kind="info">This is the only time the webhook secret is shown: copy it into {platform} now.</Notice>
      ) : (
        <Notice kind="info">
          Give {platform} this receiver URL as the address of its webhooks (its events’ request URL): {platform} signs what it sends with its own secret, the
          one given in the form.
        </Notice>
      )}
      <h3>Receiver URL</h3>
      <CopyText text={connector.receiverUrl ?? ''} label="Receiver URL" />
      {props.webhookSecret ? (
        <>
          <h3>Webhook secret</h3>
          <CopyText text={props.webhookSecret} label="Webhook secret" />
        </>
      ) : null}
      {connector.kind === 'github' ? <GitHubWebhookSteps connector={connector} /> : null}
      {connector.kind === 'discourse' ? <DiscourseWebhookSteps /> : null}
      <button type="button" class="link" onClick={props.onDone}>
        I have set up the webhook
      </button>
    </section>
  );
}

/** The events the GitHub connector turns into activities; the webhook sends only what is ticked. */
const GITHUB_EVENTS = [
  'Issues',
  'Issue comments',
  'Pull requests',
  'Pull request reviews',
  'Pull request review comments',
  'Discussions',
  'Discussion comments',
  'Stars',
  'Forks',
  'Releases',
];

function GitHubWebhookSteps(props: { connector: Connector }) {
  const settings = settingsOf(props.connector);
  const app = Boolean(settings.installationId);
  const where = app
    ? 'the GitHub App’s settings (Developer settings → GitHub Apps → the app → General → Webhook)'
    : settings.organization
      ? `the organization ${String(settings.organization)}: Settings → Webhooks → Add webhook`
      : 'each repository: Settings → Webhooks → Add webhook';
  return (
    <ol>
      <li>Open {where}.</li>
      <li>
        Payload URL: the receiver URL above. Content type: <strong>application/json</strong>. Secret: the webhook secret above. SSL verification: enabled.
      </li>
      <li>
        {app ? 'Under Permissions & events, subscribe to these events' : 'Choose “Let me select individual events” and tick'}: {GITHUB_EVENTS.join(', ')}
        {settings.commits ? ', Pushes' : ''}.
      </li>
      <li>Keep “Active” ticked and save. GitHub sends a ping at once; the connector’s “last event received” shows it.</li>
    </ol>
  );
}

function DiscourseWebhookSteps() {
  return (
    <ol>
      <li>In the forum, as an admin: Admin → Advanced → Webhooks → New webhook (older versions: Admin → API → Webhooks).</li>
      <li>
        Payload URL: the receiver URL above. Content type: <strong>application/json</strong>. Secret: the webhook secret above.
      </li>
      <li>
        Choose “Select individual events” and tick: Post event, Like event, and Solved event where the discourse-solved plugin runs (other events are stored and
        skipped).
      </li>
      <li>Keep “Check TLS certificate of payload URL” and “Active” ticked, and save. The webhook’s Ping shows as the connector’s last event received.</li>
    </ol>
  );
}

// ——— The forms ———

interface GitHubForm {
  follow: 'repositories' | 'organization';
  repositories: string;
  organization: string;
  auth: 'token' | 'app';
  token: string;
  appId: string;
  installationId: string;
  privateKey: string;
  apiUrl: string;
  bots: 'skip' | 'keep';
  commits: boolean;
}

interface DiscourseForm {
  url: string;
  apiUsername: string;
  apiKey: string;
}

const NEW_GITHUB: GitHubForm = {
  follow: 'repositories',
  repositories: '',
  organization: '',
  auth: 'token',
  token: '',
  appId: '',
  installationId: '',
  privateKey: '',
  apiUrl: DEFAULT_GITHUB_API,
  bots: 'skip',
  commits: false,
};

const NEW_DISCOURSE: DiscourseForm = { url: '', apiUsername: 'system', apiKey: '' };

const REPOSITORY = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

/** The body's `settings` and `secrets` of a GitHub form; a sentence instead when the form is not complete. */
function githubBody(form: GitHubForm, webhookSecret: string): { settings: Values; secrets: Values } | string {
  const settings: Values = { bots: form.bots, commits: form.commits };
  const apiUrl = form.apiUrl.trim().replace(/\/+$/, '');
  if (apiUrl && apiUrl !== DEFAULT_GITHUB_API) settings.apiUrl = apiUrl;
  if (form.follow === 'repositories') {
    const repositories = form.repositories
      .split('\n')
      .map((line) =>
        line
          .trim()
          .replace(/^https:\/\/github\.com\//, '')
          .replace(/\.git$/, '')
          .replace(/\/$/, ''),
      )
      .filter(Boolean);
    if (repositories.length === 0) return 'Name at least one repository (owner/name, one per line).';
    const wrong = repositories.find((repository) => !REPOSITORY.test(repository));
    if (wrong) return `“${wrong}” is not a repository: write owner/name, one per line.`;
    settings.repositories = repositories;
  } else {
    if (!form.organization.trim()) return 'Name the organization.';
    settings.organization = form.organization.trim();
  }
  const secrets: Values = { webhookSecret };
  if (form.auth === 'token') {
    if (!form.token.trim()) return 'Give a token.';
    secrets.token = form.token.trim();
  } else {
    if (!/^\d+$/.test(form.appId.trim()) || !/^\d+$/.test(form.installationId.trim())) return 'The app ID and the installation ID are numbers.';
    if (!form.privateKey.trim()) return 'Paste the app’s private key (PEM).';
    // The app's ID goes with its key (secrets); the installation is where it reads (settings).
    settings.installationId = Number(form.installationId.trim());
    secrets.appId = Number(form.appId.trim());
    secrets.privateKey = form.privateKey.trim();
  }
  return { settings, secrets };
}

function discourseBody(form: DiscourseForm, webhookSecret: string): { settings: Values; secrets: Values } | string {
  if (!form.url.trim()) return 'Give the forum’s URL.';
  if (!form.apiUsername.trim()) return 'Give the API username.';
  if (!form.apiKey.trim()) return 'Give the API key.';
  return {
    settings: { url: form.url.trim().replace(/\/+$/, ''), apiUsername: form.apiUsername.trim() },
    secrets: { apiKey: form.apiKey.trim(), webhookSecret },
  };
}

/** The `settings` and `secrets` of a form made from the kind's schemas; the field found wrong instead, and why. */
function schemaBody(
  kind: ConnectorKind,
  values: { settings: FormValues; secrets: FormValues },
  webhookSecret: string,
): { settings: Values; secrets: Values } | { section: 'settings' | 'secrets'; field: string; message: string } {
  const forms = formsOf(kind);
  const settings = valuesToBody(forms.settings, values.settings);
  if (!settings.ok) return { section: 'settings', field: settings.field, message: settings.message };
  const secrets = valuesToBody(forms.secrets, values.secrets);
  if (!secrets.ok) return { section: 'secrets', field: secrets.field, message: secrets.message };
  return { settings: settings.value, secrets: makesWebhookSecret(kind) ? { ...secrets.value, webhookSecret } : secrets.value };
}

function AddConnector(props: { kinds: ConnectorKind[]; onCancel: () => void; onCreated: (connector: Connector, webhookSecret: string | null) => void }) {
  const [kind, setKind] = useState(props.kinds[0]!.kind);
  const [name, setName] = useState('');
  const [github, setGitHub] = useState<GitHubForm>(NEW_GITHUB);
  const [discourse, setDiscourse] = useState<DiscourseForm>(NEW_DISCOURSE);
  // What was typed for each platform made from its schemas: going back to one finds its fields as they were left.
  const [typed, setTyped] = useState<Record<string, { settings: FormValues; secrets: FormValues }>>({});
  const [invalid, setInvalid] = useState<{ section: 'settings' | 'secrets'; field: string } | null>(null);
  // Made once per form: a test and the creation send the same secret, the one shown afterwards.
  const [webhookSecret] = useState(newWebhookSecret);
  const [message, setMessage] = useState<Message>(null);
  const [busy, setBusy] = useState(false);
  const offered = props.kinds.find((candidate) => candidate.kind === kind)!;
  const platform = offered.platformName;
  const forms = useMemo(() => formsOf(offered), [offered]);
  const values = typed[kind] ?? { settings: initialValues(forms.settings), secrets: initialValues(forms.secrets) };
  const prefix = `connector-${kind}`;
  const body = (): { settings: Values; secrets: Values } | string => {
    if (kind === 'github') return githubBody(github, webhookSecret);
    if (kind === 'discourse') return discourseBody(discourse, webhookSecret);
    const made = schemaBody(offered, values, webhookSecret);
    if ('message' in made) {
      setInvalid({ section: made.section, field: made.field });
      focusField(fieldId(`${prefix}-${made.section}`, made.field));
      return made.message;
    }
    setInvalid(null);
    return made;
  };
  const send = async (work: (parts: { settings: Values; secrets: Values }) => Promise<void>) => {
    const parts = body();
    if (typeof parts === 'string') {
      setMessage({ kind: 'error', text: parts });
      return;
    }
    setBusy(true);
    setMessage(null);
    try {
      await work(parts);
    } catch (error) {
      setMessage({ kind: 'error', text: errorText(error) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      class="card"
      aria-labelledby="add-connector-title"
      onSubmit={(event) => {
        event.preventDefault();
        void send(async (parts) => {
          const made = await ok(hearth.POST('/api/v2/admin/connectors', { body: { kind, ...(name.trim() ? { name: name.trim() } : {}), ...parts } }));
          props.onCreated(made.data, makesWebhookSecret(offered) ? webhookSecret : null);
        });
      }}
    >
      <FocusedHeading id="add-connector-title" level={2}>
        Add a connector
      </FocusedHeading>
      <fieldset class="choices">
        <legend>Platform</legend>
        {props.kinds.map((choice) => (
          <label key={choice.kind} class="check">
            <input
              type="radio"
              name="connector-kind"
              value={choice.kind}
              checked={kind === choice.kind}
              onChange={() => {
                setKind(choice.kind);
                setMessage(null);
                setInvalid(null);
              }}
            />{' '}
            {choice.platformName}
          </label>
        ))}
      </fieldset>
      <Field label="Name" id="connector-name" hint={`Optional: the source’s name (${platform} when left empty).`}>
        <input
          id="connector-name"
          aria-describedby="connector-name-hint"
          value={name}
          placeholder={platform}
          onInput={(event) => setName(event.currentTarget.value)}
        />
      </Field>
      {kind === 'github' ? <GitHubFields form={github} onChange={setGitHub} /> : null}
      {kind === 'discourse' ? <DiscourseFields form={discourse} onChange={setDiscourse} /> : null}
      {WRITTEN_FORMS.has(kind) ? null : (
        <>
          <SchemaFields
            form={forms.settings}
            values={values.settings}
            onChange={(settings) => setTyped({ ...typed, [kind]: { ...values, settings } })}
            prefix={`${prefix}-settings`}
            legend="Settings"
            invalid={invalid?.section === 'settings' ? invalid.field : null}
          />
          <SchemaFields
            form={forms.secrets}
            values={values.secrets}
            onChange={(secrets) => setTyped({ ...typed, [kind]: { ...values, secrets } })}
            prefix={`${prefix}-secrets`}
            legend="Credentials"
            secret
            invalid={invalid?.section === 'secrets' ? invalid.field : null}
          />
          {forms.settings.fields.some((field) => field.required) || forms.secrets.fields.some((field) => field.required) ? (
            // The controls say they are required themselves; the mark is for the eye.
            <p class="muted" aria-hidden="true">
              * required
            </p>
          ) : null}
        </>
      )}
      {makesWebhookSecret(offered) ? (
        <p class="muted">
          Hearth makes the webhook’s secret ({webhookSecret.length / 2} random bytes) in this browser; it is shown with the receiver URL once the connector is
          added.
        </p>
      ) : null}
      {offered.receives && offered.platformIssuesWebhookSecret ? (
        <p class="muted">
          {platform} makes the webhook’s signing secret itself: give it above. The receiver URL to give {platform} is shown once the connector is added.
        </p>
      ) : null}
      {offered.receives ? null : (
        <p class="muted">{platform} sends no webhooks: Hearth reads what is new by regular syncs, so there is no webhook to set up.</p>
      )}
      <div class="actions">
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            send(async (parts) => {
              const tried = await ok(hearth.POST('/api/v2/admin/connectors/test', { body: { kind, ...parts } }));
              setMessage({ kind: tried.data.ok ? 'ok' : 'error', text: tried.data.message });
            })
          }
        >
          Test connection
        </button>
        <button type="submit" class="primary" disabled={busy}>
          Add connector
        </button>
        <button type="button" class="link" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
      {busy ? (
        <p class="muted" role="status">
          Asking {platform}…
        </p>
      ) : null}
      {message ? <Notice kind={message.kind}>{message.text}</Notice> : null}
    </form>
  );
}

function Choice(props: { name: string; checked: boolean; onChange: () => void; children: ComponentChildren }) {
  return (
    <label class="check">
      <input type="radio" name={props.name} checked={props.checked} onChange={props.onChange} /> {props.children}
    </label>
  );
}

function GitHubAuthFields(props: { form: GitHubForm; onChange: (form: GitHubForm) => void; prefix: string; optional?: boolean }) {
  const { form, onChange, prefix } = props;
  return (
    <fieldset>
      <legend>{props.optional ? (form.auth === 'token' ? 'Personal access token' : 'GitHub App') : 'Credential'}</legend>
      {/* A connector keeps its kind of credential: to change from a token to an app, it is added again. */}
      {props.optional ? null : (
        <>
          <Choice name={`${prefix}-auth`} checked={form.auth === 'token'} onChange={() => onChange({ ...form, auth: 'token' })}>
            A personal access token
          </Choice>{' '}
          <Choice name={`${prefix}-auth`} checked={form.auth === 'app'} onChange={() => onChange({ ...form, auth: 'app' })}>
            A GitHub App
          </Choice>
        </>
      )}
      {form.auth === 'token' ? (
        <Field
          label={props.optional ? 'New token' : 'Token'}
          id={`${prefix}-token`}
          hint={
            props.optional
              ? 'Empty: the current token stays.'
              : 'A fine-grained personal access token with read access to Metadata, Issues, Pull requests, Discussions and Contents.'
          }
        >
          <input
            id={`${prefix}-token`}
            type="password"
            autocomplete="off"
            aria-describedby={`${prefix}-token-hint`}
            required={!props.optional}
            value={form.token}
            onInput={(event) => onChange({ ...form, token: event.currentTarget.value })}
          />
        </Field>
      ) : (
        <div class="row">
          <Field label="App ID" id={`${prefix}-app-id`} hint={props.optional ? 'Empty: the current one stays.' : undefined}>
            <input
              id={`${prefix}-app-id`}
              inputMode="numeric"
              required={!props.optional}
              aria-describedby={props.optional ? `${prefix}-app-id-hint` : undefined}
              value={form.appId}
              onInput={(event) => onChange({ ...form, appId: event.currentTarget.value })}
            />
          </Field>
          <Field label="Installation ID" id={`${prefix}-installation-id`}>
            <input
              id={`${prefix}-installation-id`}
              inputMode="numeric"
              required
              value={form.installationId}
              onInput={(event) => onChange({ ...form, installationId: event.currentTarget.value })}
            />
          </Field>
          <Field
            label={props.optional ? 'New private key' : 'Private key'}
            id={`${prefix}-private-key`}
            hint={props.optional ? 'Empty: the current key stays.' : 'The app’s private key, the whole PEM file.'}
          >
            <textarea
              id={`${prefix}-private-key`}
              rows={5}
              cols={64}
              spellcheck={false}
              autocomplete="off"
              aria-describedby={`${prefix}-private-key-hint`}
              required={!props.optional}
              value={form.privateKey}
              placeholder="-----BEGIN RSA PRIVATE KEY-----"
              onInput={(event) => onChange({ ...form, privateKey: event.currentTarget.value })}
            />
          </Field>
        </div>
      )}
    </fieldset>
  );
}

function GitHubFields(props: { form: GitHubForm; onChange: (form: GitHubForm) => void }) {
  const { form, onChange } = props;
  return (
    <>
      <fieldset>
        <legend>What to follow</legend>
        <Choice name="github-follow" checked={form.follow === 'repositories'} onChange={() => onChange({ ...form, follow: 'repositories' })}>
          Repositories
        </Choice>{' '}
        <Choice name="github-follow" checked={form.follow === 'organization'} onChange={() => onChange({ ...form, follow: 'organization' })}>
          An organization (all its public repositories)
        </Choice>
        {form.follow === 'repositories' ? (
          <Field label="Repository names" id="github-repositories" hint="One per line, as owner/name (hearth-dev/hearth).">
            <textarea
              id="github-repositories"
              rows={4}
              cols={48}
              spellcheck={false}
              aria-describedby="github-repositories-hint"
              required
              value={form.repositories}
              onInput={(event) => onChange({ ...form, repositories: event.currentTarget.value })}
            />
          </Field>
        ) : (
          <Field label="Organization" id="github-organization">
            <input
              id="github-organization"
              required
              value={form.organization}
              onInput={(event) => onChange({ ...form, organization: event.currentTarget.value })}
            />
          </Field>
        )}
      </fieldset>
      <GitHubAuthFields form={form} onChange={onChange} prefix="github" />
      <fieldset>
        <legend>What to keep</legend>
        <Choice name="github-bots" checked={form.bots === 'skip'} onChange={() => onChange({ ...form, bots: 'skip' })}>
          Skip bots (dependabot, renovate, …)
        </Choice>{' '}
        <Choice name="github-bots" checked={form.bots === 'keep'} onChange={() => onChange({ ...form, bots: 'keep' })}>
          Keep bots
        </Choice>
        <br />
        <label class="check">
          <input type="checkbox" checked={form.commits} onChange={(event) => onChange({ ...form, commits: event.currentTarget.checked })} /> Record commits
        </label>
      </fieldset>
      <details>
        <summary>Advanced</summary>
        <Field label="API URL" id="github-api-url" hint="GitHub Enterprise Server: https://HOST/api/v3.">
          <input
            id="github-api-url"
            type="url"
            aria-describedby="github-api-url-hint"
            value={form.apiUrl}
            onInput={(event) => onChange({ ...form, apiUrl: event.currentTarget.value })}
          />
        </Field>
      </details>
    </>
  );
}

function DiscourseFields(props: { form: DiscourseForm; onChange: (form: DiscourseForm) => void; credentialsOnly?: boolean; prefix?: string }) {
  const { form, onChange } = props;
  const prefix = props.prefix ?? 'discourse';
  return (
    <>
      {props.credentialsOnly ? null : (
        <Field label="Forum URL" id={`${prefix}-url`} hint="https://forum.example.org">
          <input
            id={`${prefix}-url`}
            type="url"
            required
            aria-describedby={`${prefix}-url-hint`}
            value={form.url}
            onInput={(event) => onChange({ ...form, url: event.currentTarget.value })}
          />
        </Field>
      )}
      <Field label="API username" id={`${prefix}-api-username`} hint="The user an all-users key acts as (system, or an admin, to read email addresses).">
        <input
          id={`${prefix}-api-username`}
          required
          aria-describedby={`${prefix}-api-username-hint`}
          value={form.apiUsername}
          onInput={(event) => onChange({ ...form, apiUsername: event.currentTarget.value })}
        />
      </Field>
      <Field
        label={props.credentialsOnly ? 'New API key' : 'API key'}
        id={`${prefix}-api-key`}
        hint={props.credentialsOnly ? 'Empty: the current key stays.' : 'Admin → Advanced → API → New API key; read-only is enough.'}
      >
        <input
          id={`${prefix}-api-key`}
          type="password"
          autocomplete="off"
          required={!props.credentialsOnly}
          aria-describedby={`${prefix}-api-key-hint`}
          value={form.apiKey}
          onInput={(event) => onChange({ ...form, apiKey: event.currentTarget.value })}
        />
      </Field>
    </>
  );
}

/** New credentials (PATCH secrets, merged by name): rotating a token, or giving a rejected one's successor, which resumes a failed connector. */
function EditCredentials(props: { connector: Connector; kind: ConnectorKind; onCancel: () => void; onSaved: (webhookSecret: string | null) => void }) {
  const { connector, kind } = props;
  const current = settingsOf(connector);
  const prefix = `edit-${connector.id}`;
  const secretsForm = useMemo(() => formsOf(kind).secrets, [kind]);
  // Every field starts empty: the server never answers a secret, and an empty field keeps the one it holds.
  const [secretValues, setSecretValues] = useState<FormValues>({});
  const [invalid, setInvalid] = useState<string | null>(null);
  const rotatable = makesWebhookSecret(kind);
  const [github, setGitHub] = useState<GitHubForm>({
    ...NEW_GITHUB,
    auth: current.installationId ? 'app' : 'token',
    installationId: current.installationId ? String(current.installationId) : '',
  });
  const [discourse, setDiscourse] = useState<DiscourseForm>({ ...NEW_DISCOURSE, apiUsername: String(current.apiUsername ?? 'system') });
  const [rotateWebhook, setRotateWebhook] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  /** The PATCH body, and the new webhook secret if one is made; a sentence instead when the form is not complete. */
  const change = (): { body: { secrets: Values; settings?: Values }; webhookSecret: string | null } | string => {
    const webhookSecret = rotateWebhook ? newWebhookSecret() : null;
    const secrets: Values = webhookSecret ? { webhookSecret } : {};
    let settings = current;
    if (connector.kind === 'github') {
      if (github.auth === 'token') {
        if (github.token.trim()) secrets.token = github.token.trim();
      } else {
        // The app's ID is a secret the page cannot show: empty keeps it.
        if (github.appId.trim()) {
          if (!/^\d+$/.test(github.appId.trim())) return 'The app ID is a number.';
          secrets.appId = Number(github.appId.trim());
        }
        if (!/^\d+$/.test(github.installationId.trim())) return 'The installation ID is a number.';
        if (github.privateKey.trim()) secrets.privateKey = github.privateKey.trim();
        settings = { ...settings, installationId: Number(github.installationId.trim()) };
      }
    } else if (connector.kind === 'discourse') {
      if (discourse.apiKey.trim()) secrets.apiKey = discourse.apiKey.trim();
      settings = { ...settings, apiUsername: discourse.apiUsername.trim() };
    } else {
      const given = valuesToBody(secretsForm, secretValues, { partial: true });
      if (!given.ok) {
        setInvalid(given.field);
        focusField(fieldId(`${prefix}-secrets`, given.field));
        return given.message;
      }
      Object.assign(secrets, given.value);
    }
    setInvalid(null);
    const settingsChanged = JSON.stringify(settings) !== JSON.stringify(current);
    if (Object.keys(secrets).length === 0 && !settingsChanged)
      return `Nothing to change: give a new credential${rotatable ? ', or tick “Also make a new webhook secret”' : ''}.`;
    return { body: { secrets, ...(settingsChanged ? { settings } : {}) }, webhookSecret };
  };
  return (
    <form
      class="card edit"
      aria-labelledby={`edit-title-${connector.id}`}
      onSubmit={async (event) => {
        event.preventDefault();
        const made = change();
        if (typeof made === 'string') {
          setError(made);
          return;
        }
        setBusy(true);
        try {
          await ok(hearth.PATCH('/api/v2/admin/connectors/{id}', { params: { path: { id: connector.id } }, body: made.body }));
          props.onSaved(made.webhookSecret);
        } catch (failure) {
          setError(errorText(failure));
        } finally {
          setBusy(false);
        }
      }}
    >
      <FocusedHeading id={`edit-title-${connector.id}`} level={4}>
        New credentials for {connector.name}
      </FocusedHeading>
      <p class="muted">
        The new values replace the old ones (the others are kept).
        {connector.state === 'failed' ? ' This connector failed: saving new credentials resumes it.' : ' Saving new credentials resumes a failed connector.'}
      </p>
      {connector.kind === 'github' ? <GitHubAuthFields form={github} onChange={setGitHub} prefix={prefix} optional /> : null}
      {connector.kind === 'discourse' ? <DiscourseFields form={discourse} onChange={setDiscourse} credentialsOnly prefix={prefix} /> : null}
      {WRITTEN_FORMS.has(connector.kind) ? null : (
        <SchemaFields
          form={secretsForm}
          values={secretValues}
          onChange={setSecretValues}
          prefix={`${prefix}-secrets`}
          legend="Credentials"
          secret
          keepEmpty
          invalid={invalid}
        />
      )}
      {rotatable ? (
        <label class="check">
          <input type="checkbox" checked={rotateWebhook} onChange={(event) => setRotateWebhook(event.currentTarget.checked)} /> Also make a new webhook secret
          (then paste it into {kind.platformName}: deliveries signed with the old one are refused)
        </label>
      ) : null}
      {error ? <Notice kind="error">{error}</Notice> : null}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          Save credentials
        </button>
        <button type="button" class="link" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** Sources that are pushed into through the API (or read from files): their push URLs and a `curl` example. */
function PushSources(props: { sources: components['schemas']['Source'][]; error: unknown; onCreated: () => void }) {
  const [name, setName] = useState('');
  const [message, setMessage] = useState<Message>(null);
  const origin = location.origin;
  return (
    <>
      <form
        class="card inline-form"
        aria-label="New source"
        onSubmit={async (event) => {
          event.preventDefault();
          try {
            const made = await ok(hearth.POST('/api/v2/admin/sources', { body: { name } }));
            setMessage({ kind: 'ok', text: `Created the source ${made.data.name} (${made.data.sourceId}).` });
            setName('');
            props.onCreated();
          } catch (error) {
            setMessage({ kind: 'error', text: errorText(error) });
          }
        }}
      >
        <label for="source-name">New source</label>
        <input id="source-name" required value={name} onInput={(event) => setName(event.currentTarget.value)} />
        <button type="submit" class="primary">
          Create source
        </button>
      </form>
      {message ? <Notice kind={message.kind}>{message.text}</Notice> : null}
      <ErrorNotice error={props.error} />
      {props.sources.map((source) => (
        <section class="card" key={source.id} aria-label={`Source ${source.name}`}>
          <h3>
            {source.name}{' '}
            <small class="muted">
              ({source.kind}, ID {source.sourceId})
            </small>
          </h3>
          {source.kind === 'file' ? (
            <p>
              Reads JSON Lines files from <code>{source.path}</code>.
            </p>
          ) : (
            <>
              <p>
                Push URL: <code>{`${origin}/community/v1/source/${source.sourceId}/user`}</code> (users),{' '}
                <code>{`${origin}/community/v1/source/${source.sourceId}/activity`}</code> (activities); batches at <code>/users</code> and{' '}
                <code>/activities</code>.
              </p>
              <CopyText
                label={`Example push into ${source.name}`}
                text={`curl -X POST -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\\n  ${origin}/community/v1/source/${source.sourceId}/user \\\n  -d '{"id": "u-1", "fullName": "Ada Lovelace", "email": "ada@example.org"}'`}
              />
            </>
          )}
        </section>
      ))}
    </>
  );
}
