import type { components, operations } from '@hearth/client';
import { useEffect, useState } from 'preact/hooks';
import { SCOPES, type Scope } from '../../src/core/scopes.ts';
import { hearth, ok } from './api.ts';
import { CopyText, ErrorNotice, Field, formatDate, Loading, Notice, Page, Pager, usePager, useApi, Value } from './ui.tsx';

type Message = { kind: 'ok' | 'error'; text: string } | null;
type Role = 'admin' | 'member';
type JobStatus = NonNullable<NonNullable<operations['listJobs']['parameters']['query']>['status']>;

const JOB_STATUSES: JobStatus[] = ['queued', 'running', 'completed', 'failed'];

/** The server's own list of scopes (the token routes check against it), the broad ones first. */
const SCOPE_CHOICES: Scope[] = [...SCOPES.filter((scope) => !scope.includes(':')), ...SCOPES.filter((scope) => scope.includes(':'))];

export function TokensPage() {
  const tokens = useApi(() => hearth.GET('/api/v2/admin/tokens'), []);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Set<Scope>>(new Set(['read']));
  const [issued, setIssued] = useState<{ token: string; name: string } | null>(null);
  const [message, setMessage] = useState<Message>(null);
  return (
    <Page title="API tokens">
      <form
        class="card"
        aria-label="New token"
        onSubmit={async (event) => {
          event.preventDefault();
          try {
            const made = await ok(hearth.POST('/api/v2/admin/tokens', { body: { name, scopes: [...scopes] } }));
            setIssued({ token: made.data.token, name });
            setMessage(null);
            setName('');
            tokens.reload();
          } catch (error) {
            setMessage({ kind: 'error', text: (error as Error).message });
          }
        }}
      >
        <h2>New token</h2>
        <Field label="Name" id="token-name">
          <input id="token-name" required value={name} onInput={(event) => setName(event.currentTarget.value)} />
        </Field>
        <fieldset class="scopes">
          <legend>Scopes</legend>
          {SCOPE_CHOICES.map((scope) => (
            <label key={scope} class="check">
              <input
                type="checkbox"
                checked={scopes.has(scope)}
                onChange={(event) => {
                  const next = new Set(scopes);
                  if (event.currentTarget.checked) next.add(scope);
                  else next.delete(scope);
                  setScopes(next);
                }}
              />{' '}
              {scope}
            </label>
          ))}
        </fieldset>
        <button type="submit" class="primary" disabled={scopes.size === 0}>
          Create token
        </button>
      </form>
      {issued ? (
        <div class="card reveal" role="status">
          <h2>Token “{issued.name}”</h2>
          <p>This is the only time the token is shown: copy it now.</p>
          <CopyText text={issued.token} label="The new token" />
          <button type="button" class="link" onClick={() => setIssued(null)}>
            I have copied it
          </button>
        </div>
      ) : null}
      {message ? <Notice kind={message.kind}>{message.text}</Notice> : null}
      <ErrorNotice error={tokens.error} />
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Scopes</th>
            <th scope="col">Created</th>
            <th scope="col">Status</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {(tokens.data?.data ?? []).map((token) => (
            <tr key={token.jti}>
              <td>{token.name}</td>
              <td>{token.scopes.join(' ')}</td>
              <td>{formatDate(token.createdAt)}</td>
              <td>{token.revokedAt ? `revoked ${formatDate(token.revokedAt)}` : token.expiresAt ? `expires ${formatDate(token.expiresAt)}` : 'active'}</td>
              <td>
                {token.revokedAt ? null : (
                  <button
                    type="button"
                    class="danger"
                    onClick={async () => {
                      if (!window.confirm(`Revoke the token “${token.name}”? Clients using it are refused at once.`)) return;
                      try {
                        await ok(hearth.DELETE('/api/v2/admin/tokens/{jti}', { params: { path: { jti: token.jti } } }));
                        setMessage({ kind: 'ok', text: `Revoked the token ${token.name}.` });
                        tokens.reload();
                      } catch (error) {
                        setMessage({ kind: 'error', text: (error as Error).message });
                      }
                    }}
                  >
                    Revoke<span class="visually-hidden"> {token.name}</span>
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Page>
  );
}

export function UsersPage(props: { me: string }) {
  const users = useApi(() => hearth.GET('/api/v2/admin/users'), []);
  const [form, setForm] = useState<{ name: string; loginEmail: string; role: Role }>({ name: '', loginEmail: '', role: 'member' });
  const [link, setLink] = useState<{ who: string; url: string } | null>(null);
  const [message, setMessage] = useState<Message>(null);
  const act = async (work: () => Promise<unknown>) => {
    try {
      await work();
      users.reload();
    } catch (error) {
      setMessage({ kind: 'error', text: (error as Error).message });
    }
  };
  return (
    <Page title="Users">
      <form
        class="card"
        aria-label="New user"
        onSubmit={(event) => {
          event.preventDefault();
          void act(async () => {
            const made = await ok(hearth.POST('/api/v2/admin/users', { body: form }));
            setLink({ who: made.data.user.name, url: made.data.signInLink.url });
            setForm({ name: '', loginEmail: '', role: 'member' });
            setMessage(null);
          });
        }}
      >
        <h2>New user</h2>
        <div class="row">
          <Field label="Name" id="user-name">
            <input id="user-name" required value={form.name} onInput={(event) => setForm({ ...form, name: event.currentTarget.value })} />
          </Field>
          <Field label="Email address" id="user-email">
            <input
              id="user-email"
              type="email"
              required
              value={form.loginEmail}
              onInput={(event) => setForm({ ...form, loginEmail: event.currentTarget.value })}
            />
          </Field>
          <Field label="Role" id="user-role">
            <select id="user-role" value={form.role} onChange={(event) => setForm({ ...form, role: event.currentTarget.value as Role })}>
              <option value="member">member (data)</option>
              <option value="admin">admin (data, tokens, users, sources)</option>
            </select>
          </Field>
        </div>
        <button type="submit" class="primary">
          Add user
        </button>
      </form>
      {link ? (
        <div class="card reveal" role="status">
          <p>Give {link.who} this one-time sign-in link (good for a day, shown once):</p>
          <CopyText text={link.url} label={`Sign-in link for ${link.who}`} />
        </div>
      ) : null}
      {message ? <Notice kind={message.kind}>{message.text}</Notice> : null}
      <ErrorNotice error={users.error} />
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">Password</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {(users.data?.data ?? []).map((user) => (
            <tr key={user.id}>
              <td>{user.name}</td>
              <td>{user.loginEmail}</td>
              <td>
                <label class="visually-hidden" for={`role-${user.id}`}>
                  Role of {user.name}
                </label>
                <select
                  id={`role-${user.id}`}
                  value={user.role}
                  onChange={(event) =>
                    act(() =>
                      ok(hearth.PATCH('/api/v2/admin/users/{id}', { params: { path: { id: user.id } }, body: { role: event.currentTarget.value as Role } })),
                    )
                  }
                >
                  <option value="member">member</option>
                  <option value="admin">admin</option>
                </select>
              </td>
              <td>{user.hasPassword ? 'set' : 'not yet'}</td>
              <td class="actions">
                <button
                  type="button"
                  onClick={() =>
                    act(async () => {
                      const made = await ok(hearth.POST('/api/v2/admin/users/{id}/sign-in-link', { params: { path: { id: user.id } } }));
                      setLink({ who: user.name, url: made.data.url });
                    })
                  }
                >
                  Sign-in link<span class="visually-hidden"> for {user.name}</span>
                </button>
                {user.id === props.me ? null : (
                  <button
                    type="button"
                    class="danger"
                    onClick={() =>
                      window.confirm(`Remove ${user.name}?`) && act(() => ok(hearth.DELETE('/api/v2/admin/users/{id}', { params: { path: { id: user.id } } })))
                    }
                  >
                    Remove<span class="visually-hidden"> {user.name}</span>
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Page>
  );
}

export function RemovalRequestsPage() {
  const requests = useApi(() => hearth.GET('/api/v2/admin/removal-requests'), []);
  return (
    <Page title="Removal requests">
      <p class="muted">Requests to erase a person’s data (DELETE /community/v1/user/{'{email}'}); the address is kept only until erasure.</p>
      <ErrorNotice error={requests.error} />
      <table>
        <thead>
          <tr>
            <th scope="col">ID</th>
            <th scope="col">Address</th>
            <th scope="col">Status</th>
            <th scope="col">Requested</th>
            <th scope="col">Deadline</th>
            <th scope="col">Completed</th>
            <th scope="col">Erased</th>
          </tr>
        </thead>
        <tbody>
          {(requests.data?.data ?? []).map((request) => (
            <tr key={request.id}>
              <td>{request.id}</td>
              <td>{request.email ?? <span class="muted">erased</span>}</td>
              <td>{request.status}</td>
              <td>{formatDate(request.requestedAt)}</td>
              <td>{formatDate(request.deadline)}</td>
              <td>{formatDate(request.completedAt)}</td>
              <td>
                <Value value={request.erased} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {requests.data?.data.length === 0 ? <p class="muted">No removal request.</p> : null}
    </Page>
  );
}

/** Background jobs (`GET /api/v2/admin/jobs`), read again every two seconds, so running jobs show their progress. */
export function JobsPage() {
  const [status, setStatus] = useState<JobStatus | ''>('');
  const pager = usePager(status);
  const jobs = useApi(
    () => hearth.GET('/api/v2/admin/jobs', { params: { query: { status: status || undefined, limit: 50, cursor: pager.cursor ?? undefined } } }),
    [status, pager.cursor],
  );
  useEffect(() => {
    const timer = window.setInterval(jobs.reload, 2000);
    return () => window.clearInterval(timer);
  }, [jobs.reload]);
  return (
    <Page title="Jobs">
      <Field label="Status" id="job-status">
        <select id="job-status" value={status} onChange={(event) => setStatus(event.currentTarget.value as JobStatus | '')}>
          <option value="">any</option>
          {JOB_STATUSES.map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
        </select>
      </Field>
      <ErrorNotice error={jobs.error} />
      {jobs.loading && !jobs.data ? <Loading /> : null}
      <table>
        <thead>
          <tr>
            <th scope="col">ID</th>
            <th scope="col">Kind</th>
            <th scope="col">Status</th>
            <th scope="col">Progress</th>
            <th scope="col">Attempts</th>
            <th scope="col">Enqueued</th>
            <th scope="col">Finished</th>
            <th scope="col">Result or error</th>
          </tr>
        </thead>
        <tbody>
          {(jobs.data?.data ?? []).map((job) => (
            <tr key={job.id}>
              <td>{job.id}</td>
              <td>
                <code>{job.kind}</code>
              </td>
              <td>{job.status}</td>
              <td>
                <JobProgress progress={job.progress} />
              </td>
              <td>
                {job.attempts} / {job.maxAttempts}
              </td>
              <td>{formatDate(job.createdAt)}</td>
              <td>{formatDate(job.finishedAt)}</td>
              <td class="clip">{job.error ?? (job.result === null || job.result === undefined ? '' : JSON.stringify(job.result))}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {jobs.data?.data.length === 0 ? <p class="muted">No job.</p> : null}
      <Pager page={pager.page} nextCursor={jobs.data?.meta.nextCursor} onNext={pager.next} onPrevious={pager.previous} />
    </Page>
  );
}

function JobProgress(props: { progress: unknown }) {
  const progress = props.progress as { done?: number; total?: number } | null | undefined;
  if (progress && typeof progress.done === 'number' && typeof progress.total === 'number' && progress.total > 0) {
    return (
      <>
        <progress max={progress.total} value={progress.done} aria-label={`${progress.done} of ${progress.total}`} /> {progress.done} / {progress.total}
      </>
    );
  }
  if (progress && typeof progress === 'object' && Object.keys(progress).length === 0) return <span class="muted">—</span>;
  return <Value value={props.progress} />;
}

export function AuditLogPage() {
  const [filters, setFilters] = useState({ operation: '', actor: '', entityId: '' });
  const [applied, setApplied] = useState(filters);
  const pager = usePager(JSON.stringify(applied));
  const entries = useApi(
    () =>
      hearth.GET('/api/v2/admin/audit-log', {
        params: {
          query: {
            limit: 50,
            cursor: pager.cursor ?? undefined,
            operation: applied.operation || undefined,
            actor: applied.actor || undefined,
            entityId: applied.entityId || undefined,
          },
        },
      }),
    [pager.cursor, JSON.stringify(applied)],
  );
  return (
    <Page title="Audit log">
      <form
        class="card row"
        aria-label="Audit log filters"
        onSubmit={(event) => {
          event.preventDefault();
          setApplied(filters);
        }}
      >
        <Field label="Operation" id="audit-operation" hint="exact, or a prefix ending in * (segment.*)">
          <input id="audit-operation" value={filters.operation} onInput={(event) => setFilters({ ...filters, operation: event.currentTarget.value })} />
        </Field>
        <Field label="Actor" id="audit-actor">
          <input id="audit-actor" value={filters.actor} onInput={(event) => setFilters({ ...filters, actor: event.currentTarget.value })} />
        </Field>
        <Field label="Record" id="audit-entity" hint="c_12, s_3, …">
          <input id="audit-entity" value={filters.entityId} onInput={(event) => setFilters({ ...filters, entityId: event.currentTarget.value })} />
        </Field>
        <button type="submit" class="primary">
          Apply
        </button>
      </form>
      <ErrorNotice error={entries.error} />
      <table>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">Operation</th>
            <th scope="col">Records</th>
            <th scope="col">Detail</th>
          </tr>
        </thead>
        <tbody>
          {(entries.data?.data ?? []).map((entry) => (
            <tr key={entry.id}>
              <td>{formatDate(entry.at)}</td>
              <td>{entry.actor}</td>
              <td>
                <code>{entry.operation}</code>
              </td>
              <td>{(entry.entityIds as string[]).slice(0, 5).join(', ') + (entry.entityIds.length > 5 ? ` +${entry.entityIds.length - 5}` : '')}</td>
              <td class="clip">{Object.keys(entry.detail ?? {}).length ? JSON.stringify(entry.detail) : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <Pager page={pager.page} nextCursor={entries.data?.meta.nextCursor} onNext={pager.next} onPrevious={pager.previous} />
    </Page>
  );
}

export function AccountPage(props: { session: components['schemas']['ConsoleSession']; onChanged: () => void }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [message, setMessage] = useState<Message>(null);
  const needsCurrent = props.session.currentPasswordNeeded !== false;
  return (
    <Page title="Your account">
      <p>
        Signed in as <strong>{props.session.user.name}</strong> ({props.session.user.loginEmail}), {props.session.user.role} of {props.session.communityName}.
      </p>
      {props.session.passwordRequired ? (
        <Notice kind="info">Choose a password: you signed in with a one-time link.</Notice>
      ) : needsCurrent ? null : (
        <Notice kind="info">You signed in with a one-time link: choose a new password. The current one is not asked for this once.</Notice>
      )}
      <form
        class="card"
        aria-label="Change password"
        onSubmit={async (event) => {
          event.preventDefault();
          try {
            await ok(hearth.PUT('/api/v2/session/password', { body: { ...(current ? { currentPassword: current } : {}), newPassword: next } }));
            setMessage({ kind: 'ok', text: 'Your password is set. Your other sessions have ended.' });
            setCurrent('');
            setNext('');
            props.onChanged();
          } catch (error) {
            setMessage({ kind: 'error', text: (error as Error).message });
          }
        }}
      >
        <h2>Password</h2>
        {needsCurrent ? (
          <Field label="Current password" id="current-password">
            <input
              id="current-password"
              type="password"
              autocomplete="current-password"
              required
              value={current}
              onInput={(event) => setCurrent(event.currentTarget.value)}
            />
          </Field>
        ) : null}
        <Field label="New password" id="new-password" hint="At least 10 characters.">
          <input
            id="new-password"
            type="password"
            autocomplete="new-password"
            minLength={10}
            required
            aria-describedby="new-password-hint"
            value={next}
            onInput={(event) => setNext(event.currentTarget.value)}
          />
        </Field>
        <button type="submit" class="primary">
          Set password
        </button>
      </form>
      {message ? <Notice kind={message.kind}>{message.text}</Notice> : null}
    </Page>
  );
}
