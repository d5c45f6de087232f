import type { components } from '@hearth/client';
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { hearth, ok } from './api.ts';
import { ContactCustomFields, ContactTags } from './contact-edit.tsx';
import { ContactMerges } from './contact-merges.tsx';
import { ContactSegments } from './contact-segments.tsx';
import { ContactTimeline } from './contact-timeline.tsx';
import { FilterBuilder } from './filters.tsx';
import { ErrorNotice, Field, formatDate, Loading, Notice, Page, Pager, Section, usePager, useApi, Value } from './ui.tsx';

type Schemas = components['schemas'];
type Message = { kind: 'ok' | 'error'; text: string } | null;

/** A record of a list: every list's records have an ID, and most a name. */
interface ListRecord {
  id: string;
  name?: string;
}

/** The query a list page asks its list with; the columns and what else narrows the list are the caller's. */
interface ListQuery {
  limit: number;
  sort: string;
  direction: 'asc' | 'desc';
  lightFilter?: string;
  cursor?: string;
}

/** A GET of a paged list, whose records are R. */
type ListOutcome<R> =
  | { data: { data: R[]; meta: { nextCursor: string | null; recordCount?: number } }; error?: never; response: Response }
  | { data?: never; error: unknown; response: Response };

interface Column<R> {
  label: string;
  render: (row: R) => ComponentChildren;
}

/** A list page of the API: filters from its filter fields, a sort, keyset pages, and optional row selection. */
function RecordList<R extends ListRecord>(props: {
  entity: 'contact' | 'organization' | 'activity';
  /** Reads a page of the list (a GET of the typed client). */
  load: (query: ListQuery) => Promise<ListOutcome<R>>;
  /** What `load` reads besides the query: a change reads the list again, from its first page. */
  loadKey?: string;
  sorts: { value: string; label: string }[];
  columns: Column<R>[];
  selection?: (selected: R[], done: () => void) => ComponentChildren;
  filters?: boolean;
}) {
  // A link may carry the filter (`?lightFilter=`, the home page's charts): the list opens with it, counted.
  const [lightFilter, setLightFilter] = useState<string | null>(() => new URLSearchParams(location.search).get('lightFilter'));
  const [sort, setSort] = useState(props.sorts[0]!.value);
  const [direction, setDirection] = useState<'asc' | 'desc'>('asc');
  const [selected, setSelected] = useState<Map<string, R>>(new Map());
  const resetKey = `${lightFilter}|${sort}|${direction}|${props.loadKey ?? ''}`;
  const pager = usePager(resetKey);
  const list = useApi(
    () => props.load({ limit: 25, sort, direction, lightFilter: lightFilter ?? undefined, cursor: pager.cursor ?? undefined }),
    [resetKey, pager.cursor],
  );
  const rows: R[] = list.data?.data ?? [];
  const toggle = (row: R, on: boolean) =>
    setSelected((current) => {
      const next = new Map(current);
      if (on) next.set(row.id, row);
      else next.delete(row.id);
      return next;
    });
  return (
    <div class="record-list">
      {props.filters === false ? null : <FilterBuilder entity={props.entity} onApply={setLightFilter} />}
      <div class="toolbar">
        <Field label="Sort by" id={`${props.entity}-sort`}>
          <select id={`${props.entity}-sort`} value={sort} onChange={(event) => setSort(event.currentTarget.value)}>
            {props.sorts.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Direction" id={`${props.entity}-direction`}>
          <select id={`${props.entity}-direction`} value={direction} onChange={(event) => setDirection(event.currentTarget.value as 'asc' | 'desc')}>
            <option value="asc">Ascending</option>
            <option value="desc">Descending</option>
          </select>
        </Field>
      </div>
      {props.selection && selected.size > 0 ? (
        <div class="selection" role="region" aria-label="Selected records">
          <span>{selected.size} selected</span>
          {props.selection([...selected.values()], () => {
            setSelected(new Map());
            list.reload();
          })}
        </div>
      ) : null}
      <ErrorNotice error={list.error} />
      {list.data?.meta.recordCount !== undefined ? <p role="status">{list.data.meta.recordCount} match.</p> : null}
      {list.loading && !list.data ? <Loading /> : null}
      {list.data ? (
        rows.length === 0 ? (
          <p class="muted">Nothing matches.</p>
        ) : (
          <table>
            <thead>
              <tr>
                {props.selection ? (
                  <th scope="col">
                    <span class="visually-hidden">Select</span>
                  </th>
                ) : null}
                {props.columns.map((column) => (
                  <th scope="col" key={column.label}>
                    {column.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.id}>
                  {props.selection ? (
                    <td>
                      <input
                        type="checkbox"
                        id={`select-${row.id}`}
                        aria-label={`Select ${row.name ?? row.id}`}
                        checked={selected.has(row.id)}
                        onChange={(event) => toggle(row, event.currentTarget.checked)}
                      />
                    </td>
                  ) : null}
                  {props.columns.map((column) => (
                    <td key={column.label}>{column.render(row)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        )
      ) : null}
      <Pager page={pager.page} nextCursor={list.data?.meta.nextCursor} onNext={pager.next} onPrevious={pager.previous} />
    </div>
  );
}

/** Adds the selected contacts to a segment, with the bulk update the API offers. */
function AddToSegment(props: { contacts: Schemas['Contact'][]; done: () => void }) {
  const segments = useApi(() => hearth.GET('/api/v2/segments', { params: { query: { limit: 1000 } } }), []);
  const [segmentId, setSegmentId] = useState('');
  const [message, setMessage] = useState<Message>(null);
  const choices = (segments.data?.data ?? []).filter((segment) => segment.entityType === 'contact');
  return (
    <form
      class="inline-form"
      onSubmit={async (event) => {
        event.preventDefault();
        try {
          const target = segmentId || choices[0]?.id;
          await ok(hearth.POST('/api/v2/contacts/bulk-update', { body: { contactIds: props.contacts.map((contact) => contact.id), segmentId: target } }));
          setMessage({ kind: 'ok', text: `Added ${props.contacts.length} contact(s) to ${choices.find((segment) => segment.id === target)?.name ?? target}.` });
          props.done();
        } catch (error) {
          setMessage({ kind: 'error', text: (error as Error).message });
        }
      }}
    >
      <label for="add-to-segment">Segment</label>
      <select id="add-to-segment" value={segmentId || choices[0]?.id} onChange={(event) => setSegmentId(event.currentTarget.value)}>
        {choices.map((segment) => (
          <option key={segment.id} value={segment.id}>
            {segment.name}
          </option>
        ))}
      </select>
      <button type="submit" class="primary" disabled={choices.length === 0}>
        Add to segment
      </button>
      {message ? <Notice kind={message.kind}>{message.text}</Notice> : null}
    </form>
  );
}

const link = (base: string) => (row: ListRecord) => <a href={`/${base}/${row.id}`}>{row.name ?? row.id}</a>;

export function ContactsPage(props: { segmentId?: string }) {
  const [message, setMessage] = useState<string | null>(null);
  return (
    <Page title="Contacts">
      {message ? <Notice kind="ok">{message}</Notice> : null}
      <LinkedFilter />
      <RecordList
        entity="contact"
        load={(query) =>
          hearth.GET('/api/v2/contacts', {
            params: {
              query: {
                ...query,
                cols: `primaryEmail,title,companyName,activityCountAll${query.lightFilter ? ',recordCount' : ''}`,
                segmentId: props.segmentId,
              },
            },
          })
        }
        loadKey={props.segmentId}
        sorts={[
          { value: 'id', label: 'Added' },
          { value: 'name', label: 'Name' },
          { value: 'latest_activity', label: 'Latest activity' },
        ]}
        columns={[
          { label: 'Name', render: link('contacts') },
          { label: 'Email', render: (row) => <Value value={row.primaryEmail} /> },
          { label: 'Title', render: (row) => <Value value={row.title} /> },
          { label: 'Company', render: (row) => <Value value={row.companyName} /> },
          { label: 'Activities', render: (row) => row.activityCountAll },
        ]}
        selection={(contacts, done) => (
          <AddToSegment
            contacts={contacts}
            done={() => {
              setMessage(`Added ${contacts.length} contact(s) to the segment.`);
              done();
            }}
          />
        )}
      />
    </Page>
  );
}

const CONTACT_COLS =
  'fullName,primaryEmail,title,companyName,companyWebsite,location,profiles,segments,tags,leadScores,activityCount28d,activityCountAll,sparkSummary,jobHistory,cf_*';

export function ContactPage(props: { id: string }) {
  const contact = useApi(() => hearth.GET('/api/v2/contacts/{id}', { params: { path: { id: props.id }, query: { cols: CONTACT_COLS } } }), [props.id]);
  // A merge or an undo brings or takes activities: the timeline reads them again.
  const [merges, setMerges] = useState(0);
  const data = contact.data?.data;
  return (
    <Page title={data ? data.name : 'Contact'}>
      <ErrorNotice error={contact.error} />
      {data ? (
        <div class="grid">
          <Section title="Profile">
            <dl>
              {(
                [
                  ['fullName', 'Full name'],
                  ['primaryEmail', 'Email'],
                  ['title', 'Title'],
                  ['companyName', 'Company'],
                  ['companyWebsite', 'Website'],
                  ['location', 'Location'],
                  ['activityCount28d', 'Activities, 28 days'],
                  ['activityCountAll', 'Activities, all'],
                  ['sparkSummary', 'Summary'],
                ] as const
              ).map(([key, label]) => (
                <div key={key}>
                  <dt>{label}</dt>
                  <dd>
                    <Value value={data[key]} />
                  </dd>
                </div>
              ))}
            </dl>
          </Section>
          <Section title="Identities">
            <Value value={data.profiles} />
          </Section>
          <ContactSegments contact={data} segments={data.segments ?? []} onChanged={contact.reload} />
          <ContactTags contactId={data.id} tagIds={data.tags ?? []} onChanged={contact.reload} />
          <ContactCustomFields contactId={data.id} values={data.customFields} onChanged={contact.reload} />
          <Section title="Scores">
            <Value value={data.leadScores} />
          </Section>
          <Section title="Job history">
            <Value value={data.jobHistory} />
          </Section>
        </div>
      ) : contact.loading ? (
        <Loading />
      ) : null}
      {data ? (
        <ContactMerges
          contact={data}
          onChanged={() => {
            contact.reload();
            setMerges((value) => value + 1);
          }}
        />
      ) : null}
      {data ? <ContactTimeline contactId={data.id} version={merges} /> : null}
    </Page>
  );
}

export function OrganizationsPage() {
  return (
    <Page title="Organizations">
      <RecordList
        entity="organization"
        load={(query) => hearth.GET('/api/v2/organizations', { params: { query: { ...query, cols: 'contactsCount,employees,location' } } })}
        sorts={[
          { value: 'id', label: 'Added' },
          { value: 'member_count', label: 'Contacts' },
        ]}
        columns={[
          { label: 'Name', render: link('organizations') },
          { label: 'Contacts', render: (row) => row.contactsCount ?? 0 },
          { label: 'Employees', render: (row) => <Value value={row.employees} /> },
          { label: 'Location', render: (row) => <Value value={row.location} /> },
        ]}
      />
    </Page>
  );
}

export function OrganizationPage(props: { id: string }) {
  const organization = useApi(
    () =>
      hearth.GET('/api/v2/organizations/{id}', {
        params: {
          path: { id: props.id },
          query: { cols: 'about,contactsCount,employees,linkedInUrl,profiles,location,subIndustry,tags,leadScores,topContacts,cf_*' },
        },
      }),
    [props.id],
  );
  const contacts = useApi(
    () => hearth.GET('/api/v2/contacts', { params: { query: { organizationId: props.id, limit: 25, cols: 'title,primaryEmail' } } }),
    [props.id],
  );
  const data = organization.data?.data;
  return (
    <Page title={data ? data.name : 'Organization'}>
      <ErrorNotice error={organization.error} />
      {data ? (
        <div class="grid">
          <Section title="Profile">
            <Value value={Object.fromEntries(Object.entries(data).filter(([key]) => !['id', 'name', 'topContacts', 'customFields', 'url'].includes(key)))} />
          </Section>
          <Section title="Custom fields">
            <Value value={data.customFields} />
          </Section>
        </div>
      ) : organization.loading ? (
        <Loading />
      ) : null}
      <Section title="Contacts">
        <ErrorNotice error={contacts.error} />
        <ul class="plain">
          {(contacts.data?.data ?? []).map((contact) => (
            <li key={contact.id}>
              <a href={`/contacts/${contact.id}`}>{contact.name}</a> <span class="muted">{contact.title ?? ''}</span>
            </li>
          ))}
        </ul>
      </Section>
    </Page>
  );
}

/**
 * A list opened by a link with filters in its URL (`lightFilter`; for activities `startDate` and `endDate`, days
 * or times, both inclusive): says so, with the way back to the whole list.
 */
function LinkedFilter(props: { days?: { startDate?: string; endDate?: string } }) {
  const search = new URLSearchParams(location.search);
  if (!search.get('lightFilter') && !props.days?.startDate && !props.days?.endDate) return null;
  const between = props.days?.startDate || props.days?.endDate ? ` from ${props.days.startDate ?? 'the start'} to ${props.days.endDate ?? 'now'}` : '';
  return (
    <Notice kind="info">
      Filtered by the link you followed{between}. <a href={location.pathname}>Show all</a>
    </Notice>
  );
}

/** A day (YYYY-MM-DD) of the URL as the list's inclusive bound: its first or last millisecond, in UTC. */
function dayBound(value: string | null, end: boolean): string | undefined {
  if (!value) return undefined;
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T${end ? '23:59:59.999' : '00:00:00.000'}Z` : value;
}

export function ActivitiesPage() {
  const search = new URLSearchParams(location.search);
  const days = { startDate: search.get('startDate') ?? undefined, endDate: search.get('endDate') ?? undefined };
  const dated = days.startDate !== undefined || days.endDate !== undefined;
  return (
    <Page title="Activities">
      <LinkedFilter days={days} />
      <RecordList
        entity="activity"
        load={(query) =>
          hearth.GET('/api/v2/activities', {
            params: {
              query: {
                ...query,
                cols: `contactId,content,providerName${dated || query.lightFilter ? ',recordCount' : ''}`,
                startDate: dayBound(search.get('startDate'), false),
                endDate: dayBound(search.get('endDate'), true),
              },
            },
          })
        }
        sorts={[
          { value: 'activityTime', label: 'Time' },
          { value: 'id', label: 'Added' },
        ]}
        columns={[
          { label: 'When', render: (row) => <a href={`/activities/${row.id}`}>{formatDate(row.activityTime)}</a> },
          { label: 'Type', render: (row) => row.type },
          { label: 'Contact', render: (row) => (row.contactId ? <a href={`/contacts/${row.contactId}`}>{row.contactId}</a> : '—') },
          { label: 'Source', render: (row) => <Value value={row.providerName} /> },
          { label: 'Content', render: (row) => <span class="clip">{row.content ?? ''}</span> },
        ]}
      />
    </Page>
  );
}

export function ActivityPage(props: { id: string }) {
  const activity = useApi(
    () =>
      hearth.GET('/api/v2/activities/{id}', {
        params: {
          path: { id: props.id },
          query: { cols: 'contactId,content,isUserInitiated,participantCount,providerName,replyCount,sentiment,subSourceNames' },
        },
      }),
    [props.id],
  );
  const data = activity.data?.data;
  return (
    <Page title={data ? `${data.type} · ${formatDate(data.activityTime)}` : 'Activity'}>
      <ErrorNotice error={activity.error} />
      {data ? (
        <Section title="Activity">
          {data.contactId ? (
            <p>
              By <a href={`/contacts/${data.contactId}`}>{data.contactId}</a>
            </p>
          ) : null}
          <Value value={data} />
        </Section>
      ) : null}
    </Page>
  );
}

export function SegmentsPage() {
  const segments = useApi(() => hearth.GET('/api/v2/segments', { params: { query: { limit: 1000, cols: 'entityCount' } } }), []);
  const [name, setName] = useState('');
  const [entityType, setEntityType] = useState<'contact' | 'organization'>('contact');
  const [message, setMessage] = useState<Message>(null);
  return (
    <Page title="Segments">
      <form
        class="card inline-form"
        aria-label="New segment"
        onSubmit={async (event) => {
          event.preventDefault();
          try {
            const made = await ok(hearth.POST('/api/v2/segments', { body: { name, entityType } }));
            setMessage({ kind: 'ok', text: `Created the segment ${made.data.name}.` });
            setName('');
            segments.reload();
          } catch (error) {
            setMessage({ kind: 'error', text: (error as Error).message });
          }
        }}
      >
        <label for="segment-name">New segment</label>
        <input id="segment-name" required value={name} onInput={(event) => setName(event.currentTarget.value)} />
        <label for="segment-type">of</label>
        <select id="segment-type" value={entityType} onChange={(event) => setEntityType(event.currentTarget.value as 'contact' | 'organization')}>
          <option value="contact">contacts</option>
          <option value="organization">organizations</option>
        </select>
        <button type="submit" class="primary">
          Create segment
        </button>
      </form>
      {message ? <Notice kind={message.kind}>{message.text}</Notice> : null}
      <ErrorNotice error={segments.error} />
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Of</th>
            <th scope="col">Members</th>
          </tr>
        </thead>
        <tbody>
          {(segments.data?.data ?? []).map((segment) => (
            <tr key={segment.id}>
              <td>
                <a href={`/segments/${segment.id}`}>{segment.name}</a>
              </td>
              <td>{segment.entityType}</td>
              <td>{segment.entityCount}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Page>
  );
}

export function SegmentPage(props: { id: string }) {
  const segment = useApi(() => hearth.GET('/api/v2/segments/{id}', { params: { path: { id: props.id }, query: { cols: 'entityCount' } } }), [props.id]);
  const [name, setName] = useState<string | null>(null);
  const [message, setMessage] = useState<Message>(null);
  const data = segment.data?.data;
  return (
    <Page title={data ? `Segment: ${data.name}` : 'Segment'}>
      <ErrorNotice error={segment.error} />
      {data ? (
        <>
          <p>
            {data.entityCount} {data.entityType === 'contact' ? 'contact(s)' : `${data.entityType}(s)`} in this segment.
          </p>
          <form
            class="card inline-form"
            aria-label="Rename the segment"
            onSubmit={async (event) => {
              event.preventDefault();
              try {
                await ok(hearth.PATCH('/api/v2/segments/{id}', { params: { path: { id: data.id } }, body: { name: name ?? data.name } }));
                setMessage({ kind: 'ok', text: 'Renamed.' });
                segment.reload();
              } catch (error) {
                setMessage({ kind: 'error', text: (error as Error).message });
              }
            }}
          >
            <label for="segment-rename">Name</label>
            <input id="segment-rename" required value={name ?? data.name} onInput={(event) => setName(event.currentTarget.value)} />
            <button type="submit">Rename</button>
          </form>
          {message ? <Notice kind={message.kind}>{message.text}</Notice> : null}
          {data.entityType === 'contact' ? (
            <section aria-label="Members">
              <h2>Members</h2>
              <RecordList
                entity="contact"
                load={(query) => hearth.GET('/api/v2/contacts', { params: { query: { ...query, cols: 'primaryEmail,title', segmentId: data.id } } })}
                loadKey={data.id}
                filters={false}
                sorts={[
                  { value: 'name', label: 'Name' },
                  { value: 'id', label: 'Added' },
                ]}
                columns={[
                  { label: 'Name', render: link('contacts') },
                  { label: 'Email', render: (row) => <Value value={row.primaryEmail} /> },
                  { label: 'Title', render: (row) => <Value value={row.title} /> },
                ]}
              />
            </section>
          ) : null}
        </>
      ) : null}
    </Page>
  );
}

export function TagsPage() {
  const tags = useApi(() => hearth.GET('/api/v2/tags', { params: { query: { limit: 1000 } } }), []);
  const [name, setName] = useState('');
  const [message, setMessage] = useState<Message>(null);
  return (
    <Page title="Tags">
      <form
        class="card inline-form"
        aria-label="New tag"
        onSubmit={async (event) => {
          event.preventDefault();
          try {
            await ok(hearth.POST('/community/v1/tags', { body: { name, entityTypes: ['member', 'activity', 'company'] } }));
            setMessage({ kind: 'ok', text: `Created the tag ${name}.` });
            setName('');
            tags.reload();
          } catch (error) {
            setMessage({ kind: 'error', text: (error as Error).message });
          }
        }}
      >
        <label for="tag-name">New tag</label>
        <input id="tag-name" required value={name} onInput={(event) => setName(event.currentTarget.value)} />
        <button type="submit" class="primary">
          Create tag
        </button>
      </form>
      {message ? <Notice kind={message.kind}>{message.text}</Notice> : null}
      <ErrorNotice error={tags.error} />
      <table>
        <thead>
          <tr>
            <th scope="col">Tag</th>
            <th scope="col">ID</th>
            <th scope="col">For</th>
          </tr>
        </thead>
        <tbody>
          {(tags.data?.data ?? []).map((tag) => (
            <tr key={tag.id}>
              <td>{tag.name}</td>
              <td>
                <code>{tag.id}</code>
              </td>
              <td>{(tag.entityTypes ?? []).join(', ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Page>
  );
}
