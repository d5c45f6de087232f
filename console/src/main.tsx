import type { components } from '@hearth/client';
import { render } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { AccountPage, AuditLogPage, JobsPage, RemovalRequestsPage, TokensPage, UsersPage } from './admin.tsx';
import { SourcesPage } from './connectors.tsx';
import { DUPLICATES_PATH, DuplicatesPage } from './duplicates.tsx';
import { HomePage } from './home.tsx';
import { ApiError, hearth, ok, setCsrfToken, whenSignedOut } from './api.ts';
import {
  ActivitiesPage,
  ActivityPage,
  ContactPage,
  ContactsPage,
  OrganizationPage,
  OrganizationsPage,
  SegmentPage,
  SegmentsPage,
  TagsPage,
} from './records.tsx';
import { interceptLinks, navigate, useLocation } from './router.ts';
import { SearchBox } from './search.tsx';
import { ErrorNotice, Field, Loading, Page } from './ui.tsx';

type Session = components['schemas']['ConsoleSession'];

const NAV: { path: string; label: string; admin?: boolean }[] = [
  { path: '/', label: 'Home' },
  { path: '/contacts', label: 'Contacts' },
  // Under /contacts: the server serves the console at /contacts/:id, and no contact ID (c_N) reads "duplicates".
  { path: DUPLICATES_PATH, label: 'Duplicates' },
  { path: '/organizations', label: 'Organizations' },
  { path: '/activities', label: 'Activities' },
  { path: '/segments', label: 'Segments' },
  { path: '/tags', label: 'Tags' },
  { path: '/tokens', label: 'API tokens', admin: true },
  { path: '/sources', label: 'Sources', admin: true },
  { path: '/users', label: 'Users', admin: true },
  { path: '/removal-requests', label: 'Removal requests', admin: true },
  { path: '/jobs', label: 'Jobs', admin: true },
  { path: '/audit-log', label: 'Audit log', admin: true },
];

function SignIn(props: { current: Session | null; onSignedIn: (session: Session) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  // A link opened in a browser that is signed in waits here until the person says to use it: a link someone
  // else sent would otherwise quietly put them in the sender's account.
  const [pending, setPending] = useState<{ link: string; why: string | null } | null>(null);
  const signInByLink = (link: string, replaceSession: boolean) => {
    setBusy(true);
    ok(hearth.POST('/api/v2/session/link', { body: { link, ...(replaceSession ? { replaceSession: true } : {}) } })).then(
      (session) => props.onSignedIn(session.data),
      (failure: unknown) => {
        if (failure instanceof ApiError && failure.code === 'signed_in') setPending({ link, why: failure.message });
        else {
          setPending(null);
          setError(failure);
        }
        setBusy(false);
      },
    );
  };
  // A one-time link (`/sign-in#link=…`): its secret is in the fragment, which the browser never sends. A link
  // pasted into a tab already showing this page changes only the fragment, hence the hashchange listener.
  useEffect(() => {
    const fromFragment = () => {
      const link = new URLSearchParams(location.hash.slice(1)).get('link');
      if (!link) return;
      history.replaceState(null, '', '/sign-in');
      if (props.current) setPending({ link, why: null });
      else signInByLink(link, false);
    };
    fromFragment();
    window.addEventListener('hashchange', fromFragment);
    return () => window.removeEventListener('hashchange', fromFragment);
  }, []);
  if (pending) {
    const current = props.current;
    return (
      <main id="main" class="sign-in">
        <Page title="Use this sign-in link?">
          <div class="card">
            <ErrorNotice error={error} />
            <p>
              {current ? (
                <>
                  This browser is signed in as <strong>{current.user.name}</strong> ({current.user.loginEmail}) to {current.communityName}.
                </>
              ) : (
                pending.why
              )}
            </p>
            <p>The link signs you out, then signs in as the user it was made for, who may be someone else. Use it only if you asked for it.</p>
            <button type="button" class="primary" disabled={busy} onClick={() => signInByLink(pending.link, true)}>
              Sign out and use the link
            </button>{' '}
            <button type="button" disabled={busy} onClick={() => location.assign('/')}>
              {current ? `Stay signed in as ${current.user.name}` : 'Stay signed in'}
            </button>
          </div>
        </Page>
      </main>
    );
  }
  return (
    <main id="main" class="sign-in">
      <Page title="Sign in to Hearth">
        <form
          class="card"
          onSubmit={async (event) => {
            event.preventDefault();
            setBusy(true);
            try {
              const session = await ok(hearth.POST('/api/v2/session', { body: { email, password } }));
              props.onSignedIn(session.data);
            } catch (failure) {
              setError(failure);
              setBusy(false);
            }
          }}
        >
          <ErrorNotice error={error} />
          <Field label="Email address" id="email">
            <input id="email" type="email" autocomplete="username" required value={email} onInput={(event) => setEmail(event.currentTarget.value)} />
          </Field>
          <Field label="Password" id="password">
            <input
              id="password"
              type="password"
              autocomplete="current-password"
              required
              value={password}
              onInput={(event) => setPassword(event.currentTarget.value)}
            />
          </Field>
          <button type="submit" class="primary" disabled={busy}>
            Sign in
          </button>
          <p class="muted">The first admin signs in with the one-time link Hearth printed at its first start.</p>
        </form>
      </Page>
    </main>
  );
}

function Routes(props: { session: Session; reloadSession: () => void }) {
  const { path, search } = useLocation();
  const [, section, id] = path.split('/');
  const admin = props.session.scopes.includes('admin');
  // A list opened by a link with other filters (the home page's charts) starts again from them.
  const query = search.toString();
  switch (section) {
    case '':
      return <HomePage session={props.session} />;
    case 'contacts':
      if (path === DUPLICATES_PATH) return <DuplicatesPage />;
      return id ? <ContactPage id={decodeURIComponent(id)} /> : <ContactsPage key={query} />;
    case 'organizations':
      return id ? <OrganizationPage id={decodeURIComponent(id)} /> : <OrganizationsPage />;
    case 'activities':
      return id ? <ActivityPage id={decodeURIComponent(id)} /> : <ActivitiesPage key={query} />;
    case 'segments':
      return id ? <SegmentPage id={decodeURIComponent(id)} /> : <SegmentsPage />;
    case 'tags':
      return <TagsPage />;
    case 'account':
      return <AccountPage session={props.session} onChanged={props.reloadSession} />;
  }
  if (!admin) {
    return (
      <Page title="Admins only">
        <p>This page is for admins: your role is {props.session.user.role}.</p>
      </Page>
    );
  }
  switch (section) {
    case 'tokens':
      return <TokensPage />;
    case 'sources':
      return <SourcesPage />;
    case 'users':
      return <UsersPage me={props.session.user.id} />;
    case 'removal-requests':
      return <RemovalRequestsPage />;
    case 'jobs':
      return <JobsPage />;
    case 'audit-log':
      return <AuditLogPage />;
  }
  return (
    <Page title="Not found">
      <p>No page at {path}.</p>
    </Page>
  );
}

function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const { path } = useLocation();
  const load = useCallback(() => {
    ok(hearth.GET('/api/v2/session')).then(
      (answer) => {
        setCsrfToken(answer.data.csrfToken);
        setSession(answer.data);
      },
      () => setSession(null),
    );
  }, []);
  useEffect(() => {
    whenSignedOut(() => setSession(null));
    load();
  }, [load]);
  useEffect(() => {
    document.addEventListener('click', interceptLinks);
    return () => document.removeEventListener('click', interceptLinks);
  }, []);

  if (session === undefined) return <Loading />;
  if (session === null || path === '/sign-in') {
    if (session && path === '/sign-in' && !location.hash) {
      navigate('/', true);
      return null;
    }
    return (
      <SignIn
        current={session}
        onSignedIn={(opened) => {
          setCsrfToken(opened.csrfToken);
          setSession(opened);
          // A link's session may choose a password without the current one: it opens on the account page.
          const back = path === '/sign-in' || path === '/' ? (opened.currentPasswordNeeded ? '/' : '/account') : path;
          navigate(back + (path === '/sign-in' ? '' : location.search), true);
        }}
      />
    );
  }
  const admin = session.scopes.includes('admin');
  // The page's entry: the longest that the path is or is under (Duplicates, not Contacts, for /contacts/duplicates).
  const current = NAV.map((item) => item.path)
    .filter((item) => path === item || (item !== '/' && path.startsWith(`${item}/`)))
    .sort((a, b) => b.length - a.length)[0];
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a href="/" class="brand">
          Hearth
        </a>
        <span class="muted">{session.communityName}</span>
        <SearchBox />
        <nav aria-label="Account" class="account">
          <a href="/account">{session.user.name}</a>
          <a href="/docs" target="_blank" rel="noopener">
            API reference
          </a>
          <button
            type="button"
            class="link"
            onClick={async () => {
              await ok(hearth.DELETE('/api/v2/session')).catch(() => undefined);
              setSession(null);
              navigate('/sign-in');
            }}
          >
            Sign out
          </button>
        </nav>
      </header>
      <div class="layout">
        <nav aria-label="Main" class="side">
          <ul>
            {NAV.filter((item) => admin || !item.admin).map((item) => (
              <li key={item.path}>
                <a href={item.path} aria-current={item.path === current ? 'page' : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" tabIndex={-1}>
          <Routes session={session} reloadSession={load} />
        </main>
      </div>
    </>
  );
}

render(<App />, document.getElementById('app')!);
