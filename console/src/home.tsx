/**
 * The console's home: how the community is doing over a period against the period before (activity, active
 * and new contacts, who and what stood out, lead scores, the connectors' state), read from /api/v2/stats. A
 * community without data yet gets a guide to bringing it in instead, which gives way to the charts once the
 * first data arrives.
 */
import type { components } from '@hearth/client';
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { hearth, ok } from './api.ts';
import { BarChart, type BarGroup } from './charts.tsx';
import { stateInWords } from './connectors.tsx';
import { navigate, useLocation } from './router.ts';
import { CopyText, ErrorNotice, Loading, Notice, Page, useApi } from './ui.tsx';

type Session = components['schemas']['ConsoleSession'];
type ActivityStats = components['schemas']['ActivityStats'];
type Highlights = components['schemas']['StatsHighlights'];

/** The periods offered, in days; the URL's `period` keeps the choice. */
const PERIODS = [
  { days: 7, label: '7 days' },
  { days: 28, label: '28 days' },
  { days: 90, label: '90 days' },
  { days: 365, label: 'A year' },
] as const;
const DEFAULT_DAYS = 28;
const GROUPINGS = [
  { value: 'source', label: 'By source' },
  { value: 'category', label: 'By category' },
] as const;
type Grouping = (typeof GROUPINGS)[number]['value'];

/** How often the first-day guide looks for the first data. */
const FIRST_DAY_POLL_MS = 3000;
/** Groups drawn each in a colour of their own; the rest are summed as "Other". */
const MAX_GROUPS = 7;

/** `day` (YYYY-MM-DD) moved by `days`, in UTC. */
export function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

function dayLabel(day: string): string {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString()} ${count === 1 ? one : many}`;
}

/** A list page's URL with a lightFilter (and, for activities, the days it covers). */
function listHref(list: 'activities' | 'contacts', lightFilter: string | null, days?: { startDate: string; endDate: string }): string {
  const query = new URLSearchParams();
  if (days) {
    query.set('startDate', days.startDate);
    query.set('endDate', days.endDate);
  }
  if (lightFilter) query.set('lightFilter', lightFilter);
  return `/${list}?${query.toString()}`;
}

/**
 * The server's today: periods end there, and the server's clock, not the browser's, says which day it is. The
 * first answer of the default period tells it; it is kept for the page's life.
 */
let serverToday: string | null = null;

function useServerToday(): string | null {
  const [today, setToday] = useState(serverToday);
  useEffect(() => {
    if (today) return;
    let live = true;
    ok(hearth.GET('/api/v2/stats/contacts')).then(
      (answer) => {
        serverToday = answer.data.endDate;
        if (live) setToday(serverToday);
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [today]);
  return today;
}

/** Whether the community has no contact and no activity yet: then the home is the first-day guide, which looks again every few seconds. */
function useFirstDay(): boolean | null {
  const [empty, setEmpty] = useState<boolean | null>(null);
  useEffect(() => {
    let live = true;
    let timer = 0;
    const look = async () => {
      try {
        const [activities, contacts] = await Promise.all([
          ok(hearth.GET('/api/v2/activities', { params: { query: { limit: 1 } } })),
          ok(hearth.GET('/api/v2/contacts', { params: { query: { limit: 1 } } })),
        ]);
        const none = activities.data.length === 0 && contacts.data.length === 0;
        if (!live) return;
        setEmpty(none);
        if (none) timer = window.setTimeout(look, FIRST_DAY_POLL_MS);
      } catch {
        // A failed look (a restart, a lost network) shows the dashboard, whose own reads say what failed.
        if (live) setEmpty(false);
      }
    };
    void look();
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, []);
  return empty;
}

export function HomePage(props: { session: Session }) {
  const firstDay = useFirstDay();
  if (firstDay === null) {
    return (
      <Page title="Home">
        <Loading />
      </Page>
    );
  }
  return firstDay ? <FirstDay session={props.session} /> : <Dashboard session={props.session} />;
}

function Dashboard(props: { session: Session }) {
  const { search } = useLocation();
  const days = PERIODS.find((period) => String(period.days) === search.get('period'))?.days ?? DEFAULT_DAYS;
  const grouping: Grouping = search.get('by') === 'category' ? 'category' : 'source';
  const interval = days > 28 ? 'week' : 'day';
  const today = useServerToday();
  const period = today ? { startDate: addDays(today, -(days - 1)), endDate: today } : null;
  const periodKey = period ? `${period.startDate}|${period.endDate}` : '';
  const admin = props.session.scopes.includes('admin');
  const activity = useApi(
    () =>
      period ? hearth.GET('/api/v2/stats/activity', { params: { query: { ...period, interval, groupBy: grouping } } }) : new Promise<never>(() => undefined),
    [periodKey, grouping],
  );
  const contacts = useApi(
    () => (period ? hearth.GET('/api/v2/stats/contacts', { params: { query: { ...period, interval } } }) : new Promise<never>(() => undefined)),
    [periodKey],
  );
  const highlights = useApi(
    () => (period ? hearth.GET('/api/v2/stats/highlights', { params: { query: { ...period, limit: 5 } } }) : new Promise<never>(() => undefined)),
    [periodKey],
  );
  const choose = (change: Record<string, string>) => {
    const next = new URLSearchParams(location.search);
    for (const [name, value] of Object.entries(change)) next.set(name, value);
    navigate(`/?${next.toString()}`);
  };
  const previousWords = `the previous ${days === 365 ? 'year' : `${days} days`}`;
  return (
    <Page title="Home">
      <div class="home-controls">
        <nav aria-label="Period" class="segmented">
          {PERIODS.map((choice) => (
            <a
              key={choice.days}
              href={`/?${new URLSearchParams({ ...Object.fromEntries(search), period: String(choice.days) }).toString()}`}
              aria-current={choice.days === days ? 'page' : undefined}
            >
              {choice.label}
            </a>
          ))}
        </nav>
        {period ? (
          <p class="muted">
            {dayLabel(period.startDate)} – {dayLabel(period.endDate)} (UTC), against {previousWords}
          </p>
        ) : null}
      </div>
      {admin ? <ConnectorAlerts /> : null}
      <section class="kpis" aria-label="Contacts">
        <ErrorNotice error={contacts.error} />
        {contacts.data ? (
          <>
            <Kpi title="Active contacts" stat={contacts.data.data.active} previousWords={previousWords} hint="with an activity in the period" />
            <Kpi title="New contacts" stat={contacts.data.data.new} previousWords={previousWords} hint="whose first activity is in the period" />
          </>
        ) : contacts.loading ? (
          <Loading />
        ) : null}
        {activity.data ? (
          <Kpi
            title="Activities"
            stat={{ count: activity.data.data.total, previous: activity.data.data.previousTotal, lightFilter: null }}
            previousWords={previousWords}
            href={listHref('activities', null, activity.data.data)}
          />
        ) : null}
      </section>
      <section class="card" aria-labelledby="activity-title">
        <div class="section-header">
          <h2 id="activity-title">Activity</h2>
          <div role="group" aria-label="Stack the bars" class="segmented">
            {GROUPINGS.map((choice) => (
              <button key={choice.value} type="button" aria-pressed={choice.value === grouping} onClick={() => choose({ by: choice.value })}>
                {choice.label}
              </button>
            ))}
          </div>
        </div>
        <ErrorNotice error={activity.error} />
        {activity.data ? <ActivityChart stats={activity.data.data} grouping={grouping} /> : activity.loading ? <Loading /> : null}
      </section>
      <ErrorNotice error={highlights.error} />
      {highlights.data ? <HighlightLists highlights={highlights.data.data} /> : null}
    </Page>
  );
}

/** The activity chart: a bar per bucket, stacked by group, each part a link to its activities; the previous period's totals as a line. */
function ActivityChart(props: { stats: ActivityStats; grouping: Grouping }) {
  const stats = props.stats;
  if (stats.total === 0 && stats.previousTotal === 0) return <p class="muted">No activity in this period or the one before.</p>;
  const shown = stats.groups.slice(0, stats.groups.length > MAX_GROUPS + 1 ? MAX_GROUPS : MAX_GROUPS + 1);
  const rest = stats.groups.slice(shown.length);
  const daysOf = (i: number) => ({ startDate: stats.buckets[i]!.start, endDate: stats.buckets[i]!.end });
  const groups: BarGroup[] = shown.map((group) => ({
    key: group.key,
    name: group.name,
    values: stats.buckets.map((bucket) => bucket.counts[group.key] ?? 0),
    href: (i) => listHref('activities', group.lightFilter, daysOf(i)),
  }));
  if (rest.length) {
    groups.push({
      key: '__other',
      name: `Other (${rest.length})`,
      values: stats.buckets.map((bucket) => rest.reduce((sum, group) => sum + (bucket.counts[group.key] ?? 0), 0)),
    });
  }
  const week = stats.interval === 'week';
  const labels = stats.buckets.map((bucket) => (week ? `Week of ${dayLabel(bucket.start)}` : dayLabel(bucket.start)));
  return (
    <BarChart
      title={`Activities per ${week ? 'week' : 'day'}, by ${props.grouping}`}
      labels={labels}
      bucketHeading={week ? 'Week' : 'Day'}
      groups={groups}
      line={{ name: 'Previous period', values: stats.buckets.map((_, i) => stats.previous.buckets[i]?.total ?? null) }}
      onSelect={(href) => navigate(href)}
    />
  );
}

function changeOf(count: number, previous: number): { text: string; arrow: string; direction: 'up' | 'down' | 'flat' } {
  if (count === previous) return { text: 'no change', arrow: '→', direction: 'flat' };
  if (previous === 0) return { text: 'up from none', arrow: '▲', direction: 'up' };
  const percent = Math.round(((count - previous) / previous) * 100);
  return count > previous ? { text: `+${percent} %`, arrow: '▲', direction: 'up' } : { text: `${percent} %`, arrow: '▼', direction: 'down' };
}

/** The change against the previous period, in words and an arrow (its colour only repeats them). */
function Change(props: { count: number; previous: number }) {
  const change = changeOf(props.count, props.previous);
  return (
    <span class={`change change-${change.direction}`}>
      <span aria-hidden="true">{change.arrow} </span>
      {change.text}
    </span>
  );
}

function Kpi(props: {
  title: string;
  stat: { count: number; previous: number; lightFilter: string | null };
  previousWords: string;
  hint?: string;
  href?: string;
}) {
  const href = props.href ?? (props.stat.lightFilter ? listHref('contacts', props.stat.lightFilter) : null);
  const value = props.stat.count.toLocaleString();
  return (
    <section class="card kpi" aria-label={props.title}>
      <h2>{props.title}</h2>
      <p class="kpi-value">
        {href ? (
          <a href={href} aria-label={`${value} ${props.title.toLowerCase()}: show them`}>
            {value}
          </a>
        ) : (
          value
        )}
      </p>
      <p>
        <Change count={props.stat.count} previous={props.stat.previous} />{' '}
        <span class="muted">
          ({props.stat.previous.toLocaleString()} in {props.previousWords})
        </span>
      </p>
      {props.hint ? <p class="muted small">{props.hint}</p> : null}
    </section>
  );
}

function HighlightList(props: { title: string; empty: string; children: ComponentChildren[] }) {
  return (
    <section class="card" aria-label={props.title}>
      <h2>{props.title}</h2>
      {props.children.length ? <ol class="ranked">{props.children}</ol> : <p class="muted">{props.empty}</p>}
    </section>
  );
}

function HighlightLists(props: { highlights: Highlights }) {
  const h = props.highlights;
  return (
    <>
      <div class="grid">
        <HighlightList title="Top contributors" empty="No activity in this period.">
          {h.topContributors.map((item) => (
            <li key={item.contact.id}>
              <a href={`/contacts/${item.contact.id}`}>{item.contact.name}</a>{' '}
              <span class="muted">
                {plural(item.count, 'activity', 'activities')} (<Change count={item.count} previous={item.previous} />)
              </span>
            </li>
          ))}
        </HighlightList>
        <HighlightList title="Rising organizations" empty="No organization is more active than before.">
          {h.risingOrganizations.map((item) => (
            <li key={item.organization.id}>
              <a href={`/organizations/${item.organization.id}`}>{item.organization.name}</a>{' '}
              <span class="muted">
                {plural(item.count, 'activity', 'activities')} (<Change count={item.count} previous={item.previous} />)
              </span>
            </li>
          ))}
        </HighlightList>
        <HighlightList title="Surging topics" empty="No topic is talked about more than before.">
          {h.surgingTopics.map((item) => (
            <li key={item.topic.id}>
              {item.topic.name}{' '}
              <span class="muted">
                {plural(item.count, 'activity', 'activities')} (<Change count={item.count} previous={item.previous} />)
              </span>
            </li>
          ))}
        </HighlightList>
      </div>
      {h.leadScores.map((score) => (
        <section class="card" key={score.score.id} aria-label={`Lead score: ${score.score.name}`}>
          <h2>Lead score: {score.score.name}</h2>
          <BarChart
            title={`Contacts by ${score.score.name}`}
            labels={score.buckets.map((bucket) => `${scoreText(bucket.from)}–${scoreText(bucket.to)}`)}
            bucketHeading="Score"
            groups={[
              {
                key: 'contacts',
                name: 'Contacts',
                values: score.buckets.map((bucket) => bucket.count),
                href: (i) => listHref('contacts', scoreFilter(score.score.id, score.buckets, i)),
              },
            ]}
            onSelect={(href) => navigate(href)}
            height={180}
          />
        </section>
      ))}
    </>
  );
}

const scoreText = (value: number) => value.toLocaleString(undefined, { maximumFractionDigits: 1 });

/** The contacts of a lead-score bucket: from its lower bound up to the next bucket's (the last one's upper bound included). */
function scoreFilter(scoreId: string, buckets: { from: number; to: number }[], i: number): string {
  const bucket = buckets[i]!;
  const last = i === buckets.length - 1;
  return JSON.stringify({
    type: 'and',
    clauses: [
      { type: 'numberFilter', field: scoreId, params: { op: 'gte', value: bucket.from } },
      { type: 'numberFilter', field: scoreId, params: { op: last ? 'lte' : 'lt', value: last ? bucket.to : buckets[i + 1]!.from } },
    ],
  });
}

/** Connectors that need a look (failed, or waiting for a platform's rate limit), with a way to the Sources page. */
function ConnectorAlerts() {
  const answer = useApi(() => hearth.GET('/api/v2/admin/connectors'), []);
  const connectors = answer.data?.data ?? [];
  if (connectors.length === 0) return null;
  const troubled = connectors.filter((connector) => connector.state === 'failed' || connector.state === 'waiting');
  return (
    <section class="card" aria-label="Sources">
      <h2>Sources</h2>
      {troubled.length === 0 ? (
        <p>
          {plural(connectors.length, 'connector')}, none failed or waiting. <a href="/sources">Sources</a>
        </p>
      ) : (
        <ul class="plain">
          {troubled.map((connector) => (
            <li key={connector.id} class={`state state-${connector.state}`}>
              <a href="/sources">{connector.name}</a>: <strong>{stateInWords(connector)}</strong>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** The scope a token needs to push data in (`POST /community/v1/source/{id}/…`), and nothing else. */
const INGESTION_SCOPE = 'sources:write';

function FirstDay(props: { session: Session }) {
  const admin = props.session.scopes.includes('admin');
  return (
    <Page title="Welcome to Hearth">
      <p class="lead">
        {props.session.communityName} has no contacts or activities yet. Bring data in one of three ways; this page becomes the community’s dashboard as soon as
        the first of it arrives.
      </p>
      <p class="muted" role="status">
        Waiting for the first data (looked for every few seconds).
      </p>
      <ol class="steps">
        <li class="card">
          <h2>Connect a platform</h2>
          {admin ? <ConnectGuide /> : <p>An admin connects platforms (GitHub, Discourse, Slack, …) on the Sources page.</p>}
        </li>
        <li class="card">
          <h2>Push through the API</h2>
          <p>
            Send people and what they do from your own systems: one request per activity (the person comes with it), or batches of up to 1,000 at{' '}
            <code>/users</code> and <code>/activities</code>.
          </p>
          {admin ? <PushGuide /> : <PushExample token={null} sourceId={null} />}
        </li>
        <li class="card">
          <h2>Import a file</h2>
          <p>
            A folder of JSON Lines files, one push a line (<code>{'{"type": "user", …}'}</code>, <code>{'{"type": "activity", …}'}</code>), is a file source.
            Make one on the server, then say it has data:
          </p>
          <CopyText
            label="Making a file source and importing it"
            text={
              'npx hearth source create --name Exports --kind file --path /srv/exports --json   # {"sourceId": 2}\n' +
              `curl -X POST -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\\n  ${location.origin}/api/v2/data-available -d '{"sourceId": 2}'`
            }
          />
          <p class="muted">
            The import runs as a background job{admin ? ' (on the Jobs page)' : ''}: a bad line is counted and listed with its line number, the rest is stored.
          </p>
        </li>
      </ol>
    </Page>
  );
}

function ConnectGuide() {
  const kinds = useApi(() => hearth.GET('/api/v2/admin/connector-kinds'), []);
  const platforms = (kinds.data?.data ?? []).map((kind) => kind.platformName);
  return (
    <p>
      Hearth reads a platform’s history, then keeps up with it{platforms.length ? ` (${platforms.join(', ')})` : ''}:{' '}
      <a href="/sources">add a connector on the Sources page</a>.
    </p>
  );
}

/** For admins: a token with just the ingestion scope, made on the spot and shown once, filled into the request with a push source's ID. */
function PushGuide() {
  const sources = useApi(() => hearth.GET('/api/v2/admin/sources'), []);
  const [token, setToken] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const source = (sources.data?.data ?? []).find((candidate) => candidate.kind !== 'file');
  return (
    <>
      {token ? (
        <Notice kind="ok">
          Made a token with just the <code>{INGESTION_SCOPE}</code> scope, filled into the request below. It is shown only now: copy it, or revoke it on the{' '}
          <a href="/tokens">API tokens</a> page.
        </Notice>
      ) : (
        <p>
          <button
            type="button"
            class="primary"
            disabled={busy}
            onClick={async () => {
              setBusy(true);
              try {
                const made = await ok(hearth.POST('/api/v2/admin/tokens', { body: { name: 'Ingestion (made on the home page)', scopes: [INGESTION_SCOPE] } }));
                setToken(made.data.token);
                setError(null);
              } catch (failure) {
                setError(failure);
              } finally {
                setBusy(false);
              }
            }}
          >
            Make an ingestion token
          </button>{' '}
          <span class="muted">
            (scope <code>{INGESTION_SCOPE}</code> only: it pushes data and reads nothing)
          </span>
        </p>
      )}
      <ErrorNotice error={error} />
      <PushExample token={token} sourceId={source?.sourceId ?? null} />
    </>
  );
}

function PushExample(props: { token: string | null; sourceId: number | null }) {
  const curl =
    `curl -X POST -H "Authorization: Bearer ${props.token ?? '$TOKEN'}" -H 'Content-Type: application/json' \\\n` +
    `  ${location.origin}/community/v1/source/${props.sourceId ?? '$SOURCE_ID'}/activity \\\n` +
    `  -d '{"id": "hello-1", "activityType": "made_post_topic", "title": "Hello, Hearth",\n` +
    `       "user": {"id": "u-1", "fullName": "Ada Lovelace", "email": "ada@example.org"}}'`;
  return (
    <>
      {props.token ? null : (
        <p class="muted">
          {props.sourceId === null ? (
            <>
              Put a token with the <code>{INGESTION_SCOPE}</code> scope (an admin makes one) in place of <code>$TOKEN</code>, and a push source’s ID in place of{' '}
              <code>$SOURCE_ID</code>.
            </>
          ) : (
            <>
              Put a token with the <code>{INGESTION_SCOPE}</code> scope in place of <code>$TOKEN</code>.
            </>
          )}
        </p>
      )}
      <CopyText label="Example push of an activity" text={curl} />
    </>
  );
}
