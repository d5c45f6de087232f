import { encodeLightFilter, lightFilter, type Schemas } from '@hearth/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { hearth, ok } from './api.ts';
import { navigate, useLocation } from './router.ts';
import { ErrorNotice, Field, formatDate, Loading, Section, useApi, Value } from './ui.tsx';

type Activity = Schemas['Activity'];

/** Activities a "Load more" adds. */
const PAGE = 20;

/** The URL's query names of the two filters: a filtered timeline can be bookmarked and shared. */
const SOURCE = 'source';
const TYPE = 'type';

interface Pages {
  items: Activity[];
  nextCursor: string | null;
  /** How many activities the filters keep, from the first page's `meta.recordCount`. */
  total: number | null;
  loading: boolean;
  error: unknown;
}

/** The list's `lightFilter` for the chosen source (sig_N) and activity type; undefined for neither. */
function filterOf(source: string, type: string): string | undefined {
  const filter = lightFilter('activity');
  const clauses = [...(source ? [filter.string('providerId', 'eq', source)] : []), ...(type ? [filter.string('type', 'eq', type)] : [])];
  return clauses.length ? encodeLightFilter(filter.and(...clauses)) : undefined;
}

/** The current address with the query parameters given set (or dropped when empty); the others stay. */
function withParams(search: URLSearchParams, values: Record<string, string>): string {
  const next = new URLSearchParams(search);
  for (const [name, value] of Object.entries(values)) {
    if (value) next.set(name, value);
    else next.delete(name);
  }
  const query = next.toString();
  return `${location.pathname}${query ? `?${query}` : ''}`;
}

/**
 * A contact's activities, newest first, narrowed by source and activity type (kept in the URL's query), a
 * page at a time: "Load more" appends the next. The choices are the community's sources and activity types
 * (the definitions lists), so that a type the contact never did can be chosen and answers "none".
 * `version` reads the list again (a merge brought activities).
 */
export function ContactTimeline(props: { contactId: string; version: number }) {
  const { search } = useLocation();
  const source = search.get(SOURCE) ?? '';
  const type = search.get(TYPE) ?? '';
  const providers = useApi(() => hearth.GET('/api/v2/providers', { params: { query: { limit: 1000 } } }), []);
  const types = useApi(() => hearth.GET('/api/v2/activity-types'), []);
  const [pages, setPages] = useState<Pages>({ items: [], nextCursor: null, total: null, loading: true, error: null });
  // Which reading of the list is current: an answer to an older one (the filters changed meanwhile) is dropped.
  const generation = useRef(0);
  // After "Load more", the first row it added takes the focus (the button may be gone: no page after it).
  const focusRow = useRef<number | null>(null);
  const table = useRef<HTMLTableElement>(null);
  useEffect(() => {
    if (focusRow.current === null || pages.loading) return;
    const link = table.current?.querySelectorAll('tbody tr')[focusRow.current]?.querySelector('a');
    focusRow.current = null;
    link?.focus();
  }, [pages]);
  const key = `${props.contactId}|${source}|${type}|${props.version}`;

  const load = async (cursor: string | null, from: number) => {
    setPages((current) => ({ ...current, loading: true, error: null }));
    try {
      const answer = await ok(
        hearth.GET('/api/v2/activities', {
          params: {
            query: {
              contactId: props.contactId,
              limit: PAGE,
              sort: 'activityTime',
              direction: 'desc',
              // The count is asked for once, with the first page.
              cols: cursor ? 'content,providerName' : 'content,providerName,recordCount',
              lightFilter: filterOf(source, type),
              cursor: cursor ?? undefined,
            },
          },
        }),
      );
      setPages((current) =>
        from !== generation.current
          ? current
          : {
              items: cursor ? [...current.items, ...answer.data] : answer.data,
              nextCursor: answer.meta.nextCursor,
              total: cursor ? current.total : (answer.meta.recordCount ?? null),
              loading: false,
              error: null,
            },
      );
    } catch (error) {
      setPages((current) => (from !== generation.current ? current : { ...current, loading: false, error }));
    }
  };

  useEffect(() => {
    const next = (generation.current += 1);
    setPages({ items: [], nextCursor: null, total: null, loading: true, error: null });
    void load(null, next);
  }, [key]);

  const choose = (name: string) => (event: Event) => navigate(withParams(search, { [name]: (event.currentTarget as HTMLSelectElement).value }), true);
  const providerList = providers.data?.data ?? [];
  const typeList = types.data?.data ?? [];
  const filtered = Boolean(source || type);
  return (
    <Section title="Activities">
      <form class="toolbar timeline-filters" aria-label="Filter the activities" onSubmit={(event) => event.preventDefault()}>
        <Field label="Source" id="timeline-source">
          <select id="timeline-source" value={source} onChange={choose(SOURCE)}>
            <option value="">All sources</option>
            {/* A source in the URL that the list does not have yet (or at all) stays chosen, by its ID. */}
            {source && !providerList.some((provider) => provider.id === source) ? <option value={source}>{source}</option> : null}
            {providerList.map((provider) => (
              <option key={provider.id} value={provider.id}>
                {provider.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Activity type" id="timeline-type">
          <select id="timeline-type" value={type} onChange={choose(TYPE)}>
            <option value="">All types</option>
            {type && !typeList.some((item) => item.id === type) ? <option value={type}>{type}</option> : null}
            {typeList.map((item) => (
              <option key={item.id} value={item.id}>
                {item.displayName}
              </option>
            ))}
          </select>
        </Field>
        {filtered ? (
          <button
            type="button"
            onClick={() => {
              navigate(withParams(search, { [SOURCE]: '', [TYPE]: '' }), true);
              // The button goes with the filters: the focus goes back to the first filter.
              document.getElementById('timeline-source')?.focus();
            }}
          >
            Clear filters
          </button>
        ) : null}
      </form>
      <ErrorNotice error={providers.error ?? types.error} />
      {pages.total !== null ? (
        <p role="status" class="timeline-count">
          {pages.total === 1 ? '1 activity' : `${pages.total} activities`}
          {filtered ? ' match the filters' : ''}
          {pages.items.length < pages.total ? `; ${pages.items.length} shown` : ''}.
        </p>
      ) : null}
      {pages.items.length ? (
        <table aria-label="Activities of the contact" ref={table}>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Type</th>
              <th scope="col">Source</th>
              <th scope="col">Content</th>
            </tr>
          </thead>
          <tbody>
            {pages.items.map((row) => (
              <tr key={row.id}>
                <td>
                  <a href={`/activities/${row.id}`}>{formatDate(row.activityTime)}</a>
                </td>
                <td>{row.type}</td>
                <td>
                  <Value value={row.providerName} />
                </td>
                <td class="clip">{row.content ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : !pages.loading && !pages.error ? (
        <p class="muted">{filtered ? 'No activity matches the filters.' : 'No activity.'}</p>
      ) : null}
      <ErrorNotice error={pages.error} />
      {pages.loading ? <Loading /> : null}
      {/* Kept while the next page loads (aria-disabled, not disabled), so the keyboard's focus stays on it. */}
      {pages.nextCursor ? (
        <button
          type="button"
          aria-disabled={pages.loading ? 'true' : undefined}
          onClick={() => {
            if (pages.loading) return;
            focusRow.current = pages.items.length;
            void load(pages.nextCursor, generation.current);
          }}
        >
          Load more
        </button>
      ) : null}
    </Section>
  );
}
