import { encodeLightFilter, lightFilter, type Schemas } from '@hearth/client';
import { useState } from 'preact/hooks';
import { hearth, ok } from './api.ts';
import { FocusedNotice, named, SuggestionList, type MergeResult, type Outcome } from './duplicates.tsx';
import { navigate } from './router.ts';
import { ErrorNotice, Field, formatDate, Loading, Section, useApi } from './ui.tsx';

type Contact = Schemas['Contact'];
type Merge = Schemas['ContactMerge'];

/** Search results: a few, enough to tell namesakes apart by their email and company. */
const SEARCH_LIMIT = 10;

const CONTACT_ID = /^c_\d+$/;

/** Who made a merge, in words: a person or token by hand, or ingestion when a push showed one person. */
function mergedBy(merge: Merge): string {
  if (merge.mergedBy) return merge.mergedBy;
  return merge.providerId ? `a push to source ${merge.providerId}` : 'ingestion';
}

/**
 * The contacts merged into this one, newest first: who, when, why, and whether it was undone; "Undo merge"
 * on each that can be, after a confirmation.
 */
function MergeHistory(props: { contact: { id: string; name: string }; version: number; onUndone: (restored: Contact) => void }) {
  const merges = useApi(() => hearth.GET('/api/v2/contacts/{id}/merges', { params: { path: { id: props.contact.id } } }), [props.contact.id, props.version]);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const undo = async (merge: Merge) => {
    const question =
      `Undo the merge of ${merge.mergedId} into ${named(props.contact)}? ${merge.mergedId} comes back as a contact of its own, ` +
      'with the identities, activities, segments, tags and values it brought, and the two are not merged again automatically.';
    if (!window.confirm(question)) return;
    setBusy(merge.mergedId);
    setError(null);
    try {
      const answer = await ok(hearth.POST('/api/v2/contacts/{id}/unmerge', { params: { path: { id: props.contact.id } }, body: { mergedId: merge.mergedId } }));
      props.onUndone(answer.data.restored);
    } catch (failure) {
      // The history may have changed meanwhile (undone elsewhere): it is read again with the message.
      setError(failure);
      merges.reload();
    } finally {
      setBusy(null);
    }
  };
  if (merges.error) return <ErrorNotice error={merges.error} />;
  if (!merges.data) return <Loading />;
  const history = merges.data.data;
  if (history.length === 0) return <p class="muted">No contact was merged into this one.</p>;
  return (
    <>
      <ErrorNotice error={error} />
      <table>
        <thead>
          <tr>
            <th scope="col">Contact</th>
            <th scope="col">Merged</th>
            <th scope="col">By</th>
            <th scope="col">Why</th>
            <th scope="col">Undone</th>
          </tr>
        </thead>
        <tbody>
          {history.map((merge) => (
            <tr key={`${merge.mergedId}-${merge.mergedAt}`}>
              {/* While merged, the ID leads here; once undone, to the contact it is again. */}
              <td>{merge.unmergedAt ? <a href={`/contacts/${merge.mergedId}`}>{merge.mergedId}</a> : merge.mergedId}</td>
              <td>{formatDate(merge.mergedAt)}</td>
              <td>{mergedBy(merge)}</td>
              <td>
                {merge.reason}
                {merge.identityType ? <span class="muted"> (shared {merge.identityType})</span> : null}
              </td>
              <td>
                {merge.unmergedAt ? (
                  `Undone ${formatDate(merge.unmergedAt)}${merge.unmergedBy ? ` by ${merge.unmergedBy}` : ''}`
                ) : merge.undoable ? (
                  <button type="button" class="danger" disabled={busy !== null} onClick={() => void undo(merge)}>
                    Undo merge<span class="visually-hidden"> of {merge.mergedId}</span>
                  </button>
                ) : (
                  <span class="muted">Cannot be undone: no record was kept of what it brought.</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

/** The contacts a search names: by ID (c_N), or by a part of their name or email address. */
async function findContacts(query: string): Promise<Contact[]> {
  const cols = 'primaryEmail,companyName';
  if (CONTACT_ID.test(query)) {
    const answer = await ok(hearth.GET('/api/v2/contacts/{id}', { params: { path: { id: query }, query: { cols } } }));
    return [answer.data];
  }
  const filter = lightFilter('contact');
  const expression = filter.or(filter.string('name', 'like', query), filter.string('primaryEmail', 'like', query));
  const answer = await ok(
    hearth.GET('/api/v2/contacts', { params: { query: { lightFilter: encodeLightFilter(expression), limit: SEARCH_LIMIT, sort: 'name', cols } } }),
  );
  return answer.data;
}

/** Merge with…: find the other contact by name, email or ID, choose it, then confirm. */
function MergeWith(props: { contact: { id: string; name: string }; onMerged: (result: MergeResult) => void }) {
  const [query, setQuery] = useState('');
  const [results, setResults] = useState<{ query: string; found: Contact[]; itself: boolean } | null>(null);
  const [chosen, setChosen] = useState<Contact | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const search = async (event: Event) => {
    event.preventDefault();
    const wanted = query.trim();
    setBusy(true);
    setError(null);
    setChosen(null);
    try {
      const found = await findContacts(wanted);
      // An ID merged into this contact answers with this contact: it cannot be merged with itself.
      setResults({
        query: wanted,
        found: found.filter((contact) => contact.id !== props.contact.id),
        itself: found.some((contact) => contact.id === props.contact.id),
      });
    } catch (failure) {
      setResults(null);
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  const merge = async (other: Contact) => {
    setBusy(true);
    setError(null);
    try {
      const answer = await ok(hearth.POST('/api/v2/contacts/{id}/merge', { params: { path: { id: props.contact.id } }, body: { contactId: other.id } }));
      setChosen(null);
      setResults(null);
      setQuery('');
      props.onMerged(answer.data);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <form class="inline-form merge-search" aria-label="Find the contact to merge with" onSubmit={search}>
        <Field label="Find a contact" id="merge-search" hint="Part of a name or an email address, or a contact ID (c_N).">
          <input
            id="merge-search"
            type="search"
            required
            aria-describedby="merge-search-hint"
            value={query}
            onInput={(event) => setQuery(event.currentTarget.value)}
          />
        </Field>
        <button type="submit" disabled={busy}>
          Search
        </button>
      </form>
      <ErrorNotice error={error} />
      {results ? (
        results.found.length ? (
          <fieldset>
            <legend>Merge with</legend>
            {results.found.map((contact) => (
              <label class="check choice" key={contact.id}>
                <input type="radio" name="merge-with" checked={chosen?.id === contact.id} onChange={() => setChosen(contact)} />
                {contact.name} <span class="muted">{[contact.id, contact.primaryEmail, contact.companyName].filter(Boolean).join(' · ')}</span>
              </label>
            ))}
          </fieldset>
        ) : (
          <p class="muted" role="status">
            {results.itself ? `${results.query} is this contact, or was merged into it.` : `No other contact matches “${results.query}”.`}
          </p>
        )
      ) : null}
      {chosen ? (
        <div class="confirm" role="group" aria-label="Confirm the merge">
          <p>
            Make {named(props.contact)} and {named(chosen)} one contact? The older of the two stays and takes the other&apos;s identities, activities, segments,
            tags and values (its own win); the other&apos;s ID then leads to it. The Merges section can undo it.
          </p>
          <div class="actions">
            <button type="button" class="primary" disabled={busy} onClick={() => void merge(chosen)}>
              Merge with {chosen.name}
            </button>
            <button type="button" disabled={busy} onClick={() => setChosen(null)}>
              Cancel
            </button>
          </div>
        </div>
      ) : null}
    </>
  );
}

/**
 * A contact's merges: its history with "Undo merge", "Merge with…" another contact, and its open
 * suggestions. `onChanged` reads the rest of the page again after a merge or an undo changed the contact.
 */
export function ContactMerges(props: { contact: { id: string; name: string }; onChanged: () => void }) {
  const { contact } = props;
  // What the last action did, for the contact it concerns: a merge may leave the page for its survivor.
  const [outcome, setOutcome] = useState<{ contactId: string; outcome: Outcome } | null>(null);
  // A merge or an undo changes the history, and the pairs this contact is suggested in.
  const [version, setVersion] = useState(0);
  const changed = () => {
    setVersion((value) => value + 1);
    props.onChanged();
  };
  const merged = (result: MergeResult) => {
    setOutcome({
      contactId: result.survivorId,
      outcome: {
        kind: 'ok',
        content: (
          <>
            Merged {result.mergedId} into <a href={`/contacts/${result.survivorId}`}>{result.contact.name}</a> ({result.survivorId}). The Merges section below
            can undo it.
          </>
        ),
      },
    });
    // This contact may be the newer one, merged away: its page is now the survivor's.
    if (result.survivorId !== contact.id) navigate(`/contacts/${result.survivorId}`, true);
    changed();
  };
  return (
    <>
      <FocusedNotice outcome={outcome?.contactId === contact.id ? outcome.outcome : null} />
      <Section title="Merges">
        <MergeHistory
          contact={contact}
          version={version}
          onUndone={(restored) => {
            setOutcome({
              contactId: contact.id,
              outcome: {
                kind: 'ok',
                content: (
                  <>
                    Undone: <a href={`/contacts/${restored.id}`}>{restored.name}</a> ({restored.id}) is a contact of its own again.
                  </>
                ),
              },
            });
            changed();
          }}
        />
      </Section>
      <Section title="Merge with…">
        <p class="muted">When this contact and another are one person that Hearth did not recognise, merge them.</p>
        <MergeWith contact={contact} onMerged={merged} />
      </Section>
      <Section title="Likely duplicates">
        <SuggestionList
          key={version}
          contactId={contact.id}
          onMerged={merged}
          empty={<p class="muted">Hearth suggests no other contact as this one&apos;s duplicate.</p>}
        />
      </Section>
    </>
  );
}
