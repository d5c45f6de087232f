import { useEffect, useRef, useState } from 'preact/hooks';
import { hearth, ok } from './api.ts';
import { ErrorNotice, Field, Notice, Section, useApi } from './ui.tsx';

interface Named {
  id: string;
  name: string;
}

/**
 * "Remove" asks first, in place: the question and its two buttons take the focus; Escape or "Cancel" puts
 * it back on "Remove".
 */
function ConfirmRemoval(props: { contact: Named; segment: Named; busy: boolean; onConfirm: () => void; onCancel: () => void }) {
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => confirm.current?.focus(), []);
  return (
    <div
      class="confirm"
      role="group"
      aria-label={`Confirm the removal from ${props.segment.name}`}
      onKeyDown={(event) => {
        if (event.key === 'Escape') {
          event.preventDefault();
          props.onCancel();
        }
      }}
    >
      <p>
        Take {props.contact.name} out of the segment {props.segment.name}? The contact stays; adding it again later puts it back.
      </p>
      <div class="actions">
        <button type="button" class="danger" ref={confirm} disabled={props.busy} onClick={props.onConfirm}>
          Yes, remove from {props.segment.name}
        </button>
        <button type="button" disabled={props.busy} onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}

/**
 * The contact's segments, each with "Remove" (after a confirmation:
 * `DELETE /api/v2/segments/{id}/contacts/{contactId}`), and "Add to segment" for the contact segments it is
 * not in (`POST /api/v2/contacts/bulk-update`). `onChanged` reads the contact again.
 */
export function ContactSegments(props: { contact: Named; segments: Named[]; onChanged: () => void }) {
  const { contact } = props;
  const all = useApi(() => hearth.GET('/api/v2/segments', { params: { query: { limit: 1000 } } }), []);
  const [asking, setAsking] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  const [chosen, setChosen] = useState('');
  const memberOf = new Set(props.segments.map((segment) => segment.id));
  const choices = (all.data?.data ?? []).filter((segment) => segment.entityType === 'contact' && !memberOf.has(segment.id));
  const target = choices.some((segment) => segment.id === chosen) ? chosen : (choices[0]?.id ?? '');

  const focusRemove = (id: string) => requestAnimationFrame(() => document.getElementById(`remove-${id}`)?.focus());
  const remove = async (segment: Named) => {
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      await ok(hearth.DELETE('/api/v2/segments/{id}/contacts/{contactId}', { params: { path: { id: segment.id, contactId: contact.id } } }));
      setAsking(null);
      setDone(`Removed from ${segment.name}.`);
      props.onChanged();
      // The row is gone: the focus goes to the segment list's form.
      requestAnimationFrame(() => document.getElementById('contact-add-segment')?.focus());
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  const add = async (event: Event) => {
    event.preventDefault();
    const segment = choices.find((item) => item.id === target);
    if (!segment) return;
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      await ok(hearth.POST('/api/v2/contacts/bulk-update', { body: { contactIds: [contact.id], segmentId: segment.id } }));
      setDone(`Added to ${segment.name}.`);
      props.onChanged();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Section title="Segments">
      {props.segments.length ? (
        <ul class="plain contact-segments">
          {props.segments.map((segment) => (
            <li key={segment.id}>
              <div class="row">
                <a href={`/segments/${segment.id}`}>{segment.name}</a>
                <button
                  type="button"
                  id={`remove-${segment.id}`}
                  class="small-button"
                  aria-expanded={asking === segment.id}
                  disabled={busy}
                  onClick={() => {
                    setError(null);
                    setAsking(segment.id);
                  }}
                >
                  Remove<span class="visually-hidden"> from {segment.name}</span>
                </button>
              </div>
              {asking === segment.id ? (
                <ConfirmRemoval
                  contact={contact}
                  segment={segment}
                  busy={busy}
                  onConfirm={() => void remove(segment)}
                  onCancel={() => {
                    setAsking(null);
                    focusRemove(segment.id);
                  }}
                />
              ) : null}
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">In no segment.</p>
      )}
      <ErrorNotice error={error ?? all.error} />
      {done ? <Notice kind="ok">{done}</Notice> : null}
      <form class="inline-form" aria-label="Add to a segment" onSubmit={add}>
        <Field label="Segment to add to" id="contact-add-segment">
          <select id="contact-add-segment" value={target} disabled={choices.length === 0} onChange={(event) => setChosen(event.currentTarget.value)}>
            {choices.length === 0 ? <option value="">{all.data ? 'No other contact segment' : 'Loading…'}</option> : null}
            {choices.map((segment) => (
              <option key={segment.id} value={segment.id}>
                {segment.name}
              </option>
            ))}
          </select>
        </Field>
        <button type="submit" disabled={busy || choices.length === 0}>
          Add to segment
        </button>
      </form>
    </Section>
  );
}
