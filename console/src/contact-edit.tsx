import type { Schemas } from '@hearth/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { hearth, ok } from './api.ts';
import { ErrorNotice, Field, Notice, Section, useApi, Value } from './ui.tsx';

type Definition = Schemas['CustomField'];
interface TypedValue {
  type: string;
  value: unknown;
}

/** One change to the contact, through the bulk update the API offers for one contact as for a hundred. */
function updateContact(
  contactId: string,
  change: { tagIdsToAdd?: string[]; tagIdsToRemove?: string[]; customFields?: { customFieldId: string; customFieldValue: TypedValue }[] },
) {
  return ok(hearth.POST('/api/v2/contacts/bulk-update', { body: { contactIds: [contactId], ...change } }));
}

/**
 * The contact's tags: "Remove" on each, and "Add tag" for the live tags that contacts may have and it has
 * not (`tagIdsToAdd` / `tagIdsToRemove` of `POST /api/v2/contacts/bulk-update`).
 */
export function ContactTags(props: { contactId: string; tagIds: string[]; onChanged: () => void }) {
  const tags = useApi(() => hearth.GET('/api/v2/tags', { params: { query: { limit: 1000 } } }), []);
  const [chosen, setChosen] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  const all = tags.data?.data ?? [];
  const nameOf = (id: string) => all.find((tag) => tag.id === id)?.name ?? id;
  const has = new Set(props.tagIds);
  const choices = all.filter((tag) => !tag.deletedAt && tag.entityTypes.includes('contact') && !has.has(tag.id));
  const target = choices.some((tag) => tag.id === chosen) ? chosen : (choices[0]?.id ?? '');

  const change = async (body: { tagIdsToAdd?: string[]; tagIdsToRemove?: string[] }, said: string) => {
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      await updateContact(props.contactId, body);
      setDone(said);
      props.onChanged();
      return true;
    } catch (failure) {
      setError(failure);
      return false;
    } finally {
      setBusy(false);
    }
  };

  return (
    <Section title="Tags">
      {props.tagIds.length ? (
        <ul class="plain tag-list" aria-label="Tags of the contact">
          {props.tagIds.map((id) => (
            <li key={id} class="row">
              <span>{nameOf(id)}</span>
              <button
                type="button"
                class="small-button"
                disabled={busy}
                onClick={async () => {
                  if (await change({ tagIdsToRemove: [id] }, `Removed the tag ${nameOf(id)}.`)) {
                    // The row is gone: the focus goes to the tag chooser.
                    requestAnimationFrame(() => document.getElementById('contact-add-tag')?.focus());
                  }
                }}
              >
                Remove<span class="visually-hidden"> the tag {nameOf(id)}</span>
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">No tag.</p>
      )}
      <ErrorNotice error={error ?? tags.error} />
      {done ? <Notice kind="ok">{done}</Notice> : null}
      <form
        class="inline-form"
        aria-label="Add a tag"
        onSubmit={(event) => {
          event.preventDefault();
          if (target) void change({ tagIdsToAdd: [target] }, `Added the tag ${nameOf(target)}.`);
        }}
      >
        <Field label="Tag to add" id="contact-add-tag">
          <select id="contact-add-tag" value={target} onChange={(event) => setChosen(event.currentTarget.value)}>
            {choices.length === 0 ? <option value="">{tags.data ? 'No other tag for contacts' : 'Loading…'}</option> : null}
            {choices.map((tag) => (
              <option key={tag.id} value={tag.id}>
                {tag.name}
              </option>
            ))}
          </select>
        </Field>
        <button type="submit" disabled={busy || !target}>
          Add tag
        </button>
      </form>
    </Section>
  );
}

/** A field's allowed values (an enum's `sampleValues`). */
function allowedOf(field: Definition): string[] {
  return field.sampleValues.map((sample) => sample.value).filter((value): value is string => typeof value === 'string');
}

/** The text an input holds for a stored value. */
function textOf(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : String(value);
}

/**
 * The value the API is sent for the text typed: a number for a number field when the text is one, and
 * otherwise the text as typed, so that what does not fit is refused by the API in its own words (the one
 * judge of a value: it knows the field's rules, its allowed values, its integer-ness). Empty clears the field.
 */
export function valueOf(field: Definition, text: string, chosen: string[], multivalue: boolean): TypedValue | null {
  const type = field.valueType;
  if (multivalue) return chosen.length ? { type, value: chosen } : null;
  const trimmed = text.trim();
  if (trimmed === '') return null;
  if (type === 'int' || type === 'number') {
    const number = Number(trimmed);
    return { type, value: /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(trimmed) && Number.isFinite(number) ? number : trimmed };
  }
  if (type === 'boolean') return { type, value: trimmed === 'true' ? true : trimmed === 'false' ? false : trimmed };
  // A string keeps its spaces; the others are compared by what they say.
  return { type, value: type === 'string' ? text : trimmed };
}

/** One field's value, shown, with "Edit"; editing, the control its type takes with "Save" and "Cancel". */
function CustomFieldRow(props: { contactId: string; field: Definition; stored: TypedValue | undefined; multivalue: boolean; onSaved: (name: string) => void }) {
  const { field } = props;
  const stored = props.stored?.value;
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const control = useRef<HTMLInputElement & HTMLSelectElement>(null);
  const id = `cf-${field.id}`;
  const editId = `edit-${field.id}`;
  const errorId = `${id}-error`;

  useEffect(() => {
    if (editing) (control.current ?? document.querySelector<HTMLInputElement>(`#${id} input`))?.focus();
  }, [editing]);

  const start = () => {
    setText(Array.isArray(stored) ? '' : textOf(stored));
    setChosen(Array.isArray(stored) ? stored.map(String) : []);
    setError(null);
    setEditing(true);
  };
  const stop = () => {
    setEditing(false);
    setError(null);
    requestAnimationFrame(() => document.getElementById(editId)?.focus());
  };
  const save = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await updateContact(props.contactId, {
        customFields: [{ customFieldId: field.id, customFieldValue: valueOf(field, text, chosen, props.multivalue) ?? { type: field.valueType, value: null } }],
      });
      props.onSaved(field.name);
      stop();
    } catch (failure) {
      setError(failure);
      requestAnimationFrame(() => (control.current ?? document.querySelector<HTMLInputElement>(`#${id} input`))?.focus());
    } finally {
      setBusy(false);
    }
  };

  if (!editing) {
    return (
      <div class="cf-row">
        <dt>{field.name}</dt>
        <dd>
          <Value value={stored} />{' '}
          <button type="button" id={editId} class="small-button" onClick={start}>
            Edit<span class="visually-hidden"> {field.name}</span>
          </button>
        </dd>
      </div>
    );
  }

  const hint = hintOf(field);
  const hintId = `${id}-hint`;
  const common = {
    id,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': [error ? errorId : null, hint ? hintId : null].filter(Boolean).join(' ') || undefined,
    disabled: busy,
  };
  const allowed = allowedOf(field);
  let input;
  if (field.valueType === 'enum' && props.multivalue) {
    input = (
      <fieldset id={id} aria-describedby={common['aria-describedby']}>
        <legend>{field.name}</legend>
        {allowed.map((option) => (
          <label class="check" key={option}>
            <input
              type="checkbox"
              checked={chosen.includes(option)}
              disabled={busy}
              onChange={(event) => setChosen((list) => (event.currentTarget.checked ? [...list, option] : list.filter((item) => item !== option)))}
            />{' '}
            {option}
          </label>
        ))}
      </fieldset>
    );
  } else if (field.valueType === 'enum' || field.valueType === 'boolean') {
    const options = field.valueType === 'boolean' ? [['true', 'Yes'] as const, ['false', 'No'] as const] : allowed.map((option) => [option, option] as const);
    input = (
      <select {...common} ref={control} value={text} onChange={(event) => setText(event.currentTarget.value)}>
        <option value="">Not set</option>
        {options.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
    );
  } else {
    input = (
      <input
        {...common}
        ref={control}
        // Typed as text (a number field too): what the person typed reaches the API as typed, and its refusal names it.
        type={field.valueType === 'date' ? 'date' : 'text'}
        inputMode={field.valueType === 'int' ? 'numeric' : field.valueType === 'number' ? 'decimal' : field.valueType === 'url' ? 'url' : undefined}
        value={text}
        onInput={(event) => setText(event.currentTarget.value)}
      />
    );
  }
  const multi = field.valueType === 'enum' && props.multivalue;
  return (
    <div class="cf-row editing">
      {/* The name labels the control: the term of the list is its label while it is edited. */}
      <dt>{multi ? field.name : <label for={id}>{field.name}</label>}</dt>
      <dd>
        <form
          class="inline-form"
          aria-label={`Edit ${field.name}`}
          noValidate
          onSubmit={save}
          onKeyDown={(event) => {
            if (event.key === 'Escape') {
              event.preventDefault();
              stop();
            }
          }}
        >
          {input}
          {hint && !multi ? (
            <small id={hintId} class="muted">
              {hint}
            </small>
          ) : null}
          <div class="actions">
            <button type="submit" class="primary" disabled={busy}>
              Save<span class="visually-hidden"> {field.name}</span>
            </button>
            <button type="button" disabled={busy} onClick={stop}>
              Cancel<span class="visually-hidden"> editing {field.name}</span>
            </button>
          </div>
          {error ? (
            <p id={errorId} class="notice notice-error field-error" role="alert">
              {error instanceof Error ? error.message : String(error)}
            </p>
          ) : null}
        </form>
      </dd>
    </div>
  );
}

/** What a field takes, said under its input. */
function hintOf(field: Definition): string | undefined {
  switch (field.valueType) {
    case 'int':
      return 'A whole number. Empty clears it.';
    case 'number':
      return 'A number. Empty clears it.';
    case 'date':
      return 'A date. Empty clears it.';
    case 'url':
      return 'An http(s) address. Empty clears it.';
    default:
      return 'Empty clears it.';
  }
}

/**
 * The enum fields that are multi-selects. Only the admin definitions say it; for a member (whom that route
 * refuses) a field is a multi-select when a value it holds is a list.
 */
function useMultiSelects(): Set<string> {
  const [multi, setMulti] = useState<Set<string>>(new Set());
  useEffect(() => {
    let live = true;
    // Not through ok(): a member's 403 here is expected, and says nothing about the session.
    void hearth.GET('/api/v2/admin/custom-fields').then(
      ({ data }) => live && data && setMulti(new Set(data.data.filter((field) => field.multivalue).map((field) => field.id))),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, []);
  return multi;
}

/**
 * The contact's custom field values, each editable in place, typed by its definition
 * (`GET /api/v2/custom-fields?entityType=contact`); a value is saved with `customFields` of
 * `POST /api/v2/contacts/bulk-update`, and the API's refusal is shown next to the field.
 */
export function ContactCustomFields(props: { contactId: string; values: Record<string, TypedValue> | undefined; onChanged: () => void }) {
  const definitions = useApi(() => hearth.GET('/api/v2/custom-fields', { params: { query: { entityType: 'contact' } } }), []);
  const multi = useMultiSelects();
  const [saved, setSaved] = useState<string | null>(null);
  const fields = definitions.data?.data ?? [];
  return (
    <Section title="Custom fields">
      <ErrorNotice error={definitions.error} />
      {saved ? <Notice kind="ok">{saved}</Notice> : null}
      {fields.length ? (
        <dl class="custom-fields">
          {fields.map((field) => (
            <CustomFieldRow
              key={field.id}
              contactId={props.contactId}
              field={field}
              stored={props.values?.[field.id]}
              multivalue={multi.has(field.id) || Array.isArray(props.values?.[field.id]?.value)}
              onSaved={(name) => {
                setSaved(`Saved ${name}.`);
                props.onChanged();
              }}
            />
          ))}
        </dl>
      ) : definitions.data ? (
        <p class="muted">The community defines no custom field for contacts.</p>
      ) : null}
    </Section>
  );
}
