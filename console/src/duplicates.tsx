import type { Schemas } from '@hearth/client';
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { hearth, ok } from './api.ts';
import { ErrorNotice, formatDate, Loading, Notice, Page, useApi, Value } from './ui.tsx';

type Suggestion = Schemas['MergeSuggestion'];
type SuggestedContact = Schemas['MergeSuggestionContact'];
export type MergeResult = Schemas['ContactMergeResult'];

/**
 * Each side shows its contact's activity counts, which the suggestion does not carry: one GET per contact,
 * so a page is kept short.
 */
const PAGE_SIZE = 10;

const IDENTITY_LABELS: Record<string, string> = { email: 'Email', github: 'GitHub', twitter: 'X', linkedin: 'LinkedIn', discord: 'Discord' };

/** How a contact is named where two may share a name: its name and its ID. */
export const named = (contact: { id: string; name: string }) => `${contact.name} (${contact.id})`;

/** The page's message after an action: a sentence that may hold a link, so not only text. */
export interface Outcome {
  kind: 'ok' | 'error';
  content: ComponentChildren;
}

/**
 * A message that takes the focus when it appears: the button that led to it is gone with its item, and the
 * keyboard goes on from the message (its link first) instead of from the top of the document.
 */
export function FocusedNotice(props: { outcome: Outcome | null }) {
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (props.outcome) holder.current?.focus();
  }, [props.outcome]);
  if (!props.outcome) return null;
  return (
    <div tabIndex={-1} ref={holder} class="focus-holder">
      <Notice kind={props.outcome.kind}>{props.outcome.content}</Notice>
    </div>
  );
}

/** Only an http(s) address is linked: the value is what a push said, and a `javascript:` one must not run. */
function webAddress(value: string | null): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

function ActivityCounts(props: { id: string }) {
  const counts = useApi(
    () => hearth.GET('/api/v2/contacts/{id}', { params: { path: { id: props.id }, query: { cols: 'activityCountAll,activityCount28d' } } }),
    [props.id],
  );
  if (counts.error) return <ErrorNotice error={counts.error} />;
  const data = counts.data?.data;
  if (!data) return <span class="muted">…</span>;
  return (
    <span>
      {data.activityCountAll ?? 0} ({data.activityCount28d ?? 0} in the last 28 days)
    </span>
  );
}

/** One contact of a pair, with what tells whether the two are one person. */
function Side(props: { contact: SuggestedContact }) {
  const contact = props.contact;
  const avatar = webAddress(contact.avatarUrl);
  const place = [contact.city, contact.country].filter(Boolean).join(', ');
  const rows: [string, ComponentChildren][] = [
    ['Email', <Value value={contact.primaryEmail} />],
    [
      'Organization',
      contact.organization ? (
        <span>
          <a href={`/organizations/${contact.organization.id}`}>{contact.organization.name || contact.organization.domain}</a>
          {contact.organization.domain ? <span class="muted"> {contact.organization.domain}</span> : null}
        </span>
      ) : (
        <Value value={null} />
      ),
    ],
    ['Title', <Value value={contact.title} />],
    ['Location', <Value value={place} />],
    ['Username', <Value value={contact.username} />],
    [
      'Identities',
      contact.identities.length ? (
        <ul class="plain">
          {contact.identities.map((identity) => (
            <li key={`${identity.type}:${identity.value}`}>
              {IDENTITY_LABELS[identity.type] ?? identity.type}: {identity.value}
            </li>
          ))}
        </ul>
      ) : (
        <Value value={[]} />
      ),
    ],
    ['Activities', <ActivityCounts id={contact.id} />],
    ['Added', formatDate(contact.createdAt)],
  ];
  return (
    <section class="side-contact" aria-label={named(contact)}>
      <h3>
        <a href={`/contacts/${contact.id}`}>{contact.name}</a> <span class="muted">{contact.id}</span>
      </h3>
      {avatar ? (
        // The console's content policy loads no image from another site, so the picture is a link to it.
        <p>
          <a href={avatar} target="_blank" rel="noopener noreferrer">
            Picture<span class="visually-hidden"> of {contact.name}</span>
          </a>
        </p>
      ) : null}
      <dl>
        {rows.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

/** A pair side by side, with the score, the evidence in words, and Merge and Dismiss. */
function SuggestionCard(props: { suggestion: Suggestion; onMerged: (result: MergeResult) => void; onDismissed: () => void }) {
  const { suggestion } = props;
  const [older, newer] = suggestion.contacts as [SuggestedContact, SuggestedContact];
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const pair = `${named(older)} and ${named(newer)}`;
  const act = async <T,>(work: () => Promise<T>, done: (result: T) => void) => {
    setBusy(true);
    setError(null);
    try {
      done(await work());
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };
  return (
    <article class="card suggestion" aria-label={pair}>
      <header class="suggestion-header">
        <p>
          <strong>{Math.round(suggestion.score * 100)}% likely</strong> to be one person <span class="muted">(score {suggestion.score.toFixed(2)})</span>
        </p>
        <div class="actions">
          <button
            type="button"
            class="primary"
            disabled={busy}
            onClick={() =>
              act(
                // The older contact is the one that survives; asking on its side says so.
                () => ok(hearth.POST('/api/v2/contacts/{id}/merge', { params: { path: { id: older.id } }, body: { contactId: newer.id } })),
                (answer) => props.onMerged(answer.data),
              )
            }
          >
            Merge<span class="visually-hidden"> {pair}</span>
          </button>
          <button
            type="button"
            disabled={busy}
            onClick={() =>
              act(
                () => ok(hearth.POST('/api/v2/contacts/merge-suggestions/{id}/dismiss', { params: { path: { id: suggestion.id } } })),
                () => props.onDismissed(),
              )
            }
          >
            Dismiss<span class="visually-hidden"> {pair}</span>
          </button>
        </div>
      </header>
      <ErrorNotice error={error} />
      <div class="why">
        <h3 id={`${suggestion.id}-why`}>Why</h3>
        {/* As the API words them: a reason may begin with an address, which must keep its case. */}
        <ul aria-labelledby={`${suggestion.id}-why`}>
          {suggestion.reasons.map((reason) => (
            <li key={reason}>{reason}</li>
          ))}
        </ul>
        <p class="muted">Computed {formatDate(suggestion.computedAt)}.</p>
      </div>
      <div class="pair">
        <Side contact={older} />
        <Side contact={newer} />
      </div>
    </article>
  );
}

interface Pages {
  items: Suggestion[];
  nextCursor: string | null;
  loading: boolean;
  error: unknown;
}

/**
 * The open suggestions, best first (all, or those of one contact), a page at a time: "Load more" appends the
 * next page. An item merged or dismissed leaves the list at once; a merge also takes away the other pairs of
 * the contact merged away, which the API no longer lists either.
 */
export function SuggestionList(props: { contactId?: string; empty: ComponentChildren; onMerged?: (result: MergeResult) => void }) {
  const [pages, setPages] = useState<Pages>({ items: [], nextCursor: null, loading: true, error: null });
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  // Answers of an earlier contact's list (the page moved on) are dropped.
  const generation = useRef(0);
  const load = (cursor: string | null) => {
    const mine = generation.current;
    setPages((current) => ({ ...current, loading: true, error: null }));
    ok(
      hearth.GET('/api/v2/contacts/merge-suggestions', {
        params: { query: { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}), ...(props.contactId ? { contactId: props.contactId } : {}) } },
      }),
    ).then(
      (page) =>
        mine === generation.current &&
        setPages((current) => ({
          items: cursor ? [...current.items, ...page.data.filter((item) => !current.items.some((seen) => seen.id === item.id))] : page.data,
          nextCursor: page.meta.nextCursor,
          loading: false,
          error: null,
        })),
      (error: unknown) => mine === generation.current && setPages((current) => ({ ...current, loading: false, error })),
    );
  };
  useEffect(() => {
    generation.current += 1;
    setOutcome(null);
    load(null);
  }, [props.contactId]);
  const drop = (keep: (item: Suggestion) => boolean) => setPages((current) => ({ ...current, items: current.items.filter(keep) }));
  return (
    <div class="suggestions">
      <FocusedNotice outcome={outcome} />
      {pages.items.map((suggestion) => (
        <SuggestionCard
          key={suggestion.id}
          suggestion={suggestion}
          onMerged={(result) => {
            drop((item) => item.id !== suggestion.id && !item.contacts.some((contact) => contact.id === result.mergedId));
            // A page that handles the merge itself (a contact's page, which may move to the survivor) says what it did.
            if (props.onMerged) return props.onMerged(result);
            setOutcome({
              kind: 'ok',
              content: (
                <>
                  Merged {result.mergedId} into <a href={`/contacts/${result.survivorId}`}>{result.contact.name}</a> ({result.survivorId}). Its page&apos;s
                  Merges section can undo it.
                </>
              ),
            });
          }}
          onDismissed={() => {
            drop((item) => item.id !== suggestion.id);
            const [older, newer] = suggestion.contacts as [SuggestedContact, SuggestedContact];
            setOutcome({
              kind: 'ok',
              content: `Dismissed: ${named(older)} and ${named(newer)} will not be suggested again. "Merge with…" on a contact's page still merges them.`,
            });
          }}
        />
      ))}
      <ErrorNotice error={pages.error} />
      {pages.loading ? <Loading /> : null}
      {!pages.loading && !pages.error && pages.items.length === 0 && !pages.nextCursor ? props.empty : null}
      {pages.nextCursor ? (
        <button type="button" disabled={pages.loading} onClick={() => load(pages.nextCursor)}>
          Load more
        </button>
      ) : null}
    </div>
  );
}

/** The Duplicates page's address. */
export const DUPLICATES_PATH = '/contacts/duplicates';

export function DuplicatesPage() {
  return (
    <Page title="Duplicates">
      <p class="lead">
        Pairs of contacts that are probably one person, best first, with the evidence. Merge a pair to make it one contact (the older one stays, and the merge
        can be undone from its page), or dismiss it if they are two people.
      </p>
      <SuggestionList
        empty={
          <div class="card">
            <p>
              <strong>No likely duplicates to review.</strong>
            </p>
            <p class="muted">
              Contacts that share an email address or a handle are merged as data arrives. This page lists the pairs that share none but are probably one person
              all the same: the same name at the same company, two addresses of one mailbox, a handle in common on two platforms. Hearth looks for them in the
              background, within about a minute of a push.
            </p>
          </div>
        }
      />
    </Page>
  );
}
