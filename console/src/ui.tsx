import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, ok, type Data, type Outcome } from './api.ts';
import { useLocation } from './router.ts';

/**
 * A page's frame: its heading takes the focus when the page opens, so screen readers announce it. A title
 * that changes later (a record's name arriving) takes it only from nowhere: a reader who has meanwhile moved
 * into the search box, say, keeps typing there.
 */
export function Page(props: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  const { path } = useLocation();
  const focusedOn = useRef<string | null>(null);
  useEffect(() => {
    document.title = `${props.title} · Hearth`;
    const active = document.activeElement;
    if (focusedOn.current !== path || !active || active === document.body) heading.current?.focus();
    focusedOn.current = path;
  }, [props.title, path]);
  return (
    <section aria-labelledby="page-title">
      <header class="page-header">
        <h1 id="page-title" tabIndex={-1} ref={heading}>
          {props.title}
        </h1>
        {props.actions}
      </header>
      {props.children}
    </section>
  );
}

/** A titled part of a page, named by its title for screen readers' region list. */
export function Section(props: { title: string; children: ComponentChildren }) {
  return (
    <section class="card" aria-label={props.title}>
      <h2>{props.title}</h2>
      {props.children}
    </section>
  );
}

/** A message read out by screen readers as it appears. */
export function Notice(props: { kind: 'error' | 'ok' | 'info'; children: ComponentChildren }) {
  return (
    <p class={`notice notice-${props.kind}`} role={props.kind === 'error' ? 'alert' : 'status'}>
      {props.children}
    </p>
  );
}

export function ErrorNotice(props: { error: unknown }) {
  if (!props.error) return null;
  const message = props.error instanceof ApiError ? props.error.message : String(props.error);
  return <Notice kind="error">{message}</Notice>;
}

/**
 * Reads what `load` asks the API for (a GET of the typed client), again whenever one of `deps` changes or
 * `reload` is called.
 */
export function useApi<O extends Outcome>(load: () => Promise<O>, deps: readonly unknown[]) {
  const [state, setState] = useState<{ data: Data<O> | null; error: unknown; loading: boolean }>({ data: null, error: null, loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((previous) => ({ ...previous, loading: true }));
    ok(load()).then(
      (data) => live && setState({ data, error: null, loading: false }),
      (error: unknown) => live && setState({ data: null, error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((value) => value + 1), []);
  return { ...state, reload };
}

export function Loading() {
  return (
    <p class="muted" role="status">
      Loading…
    </p>
  );
}

/**
 * A labelled control with its hint (the control names the hint in aria-describedby). `required` marks the
 * field for the eye, outside the label so its name stays the label; the control says it is required itself.
 */
export function Field(props: { label: string; id: string; children: ComponentChildren; hint?: string; required?: boolean }) {
  const label = <label for={props.id}>{props.label}</label>;
  return (
    <div class="field">
      {props.required ? (
        <span>
          {label}
          <span class="required" aria-hidden="true">
            {' '}
            *
          </span>
        </span>
      ) : (
        label
      )}
      {props.children}
      {props.hint ? (
        <small id={`${props.id}-hint`} class="muted">
          {props.hint}
        </small>
      ) : null}
    </div>
  );
}

/**
 * Keyset pages: the API gives the next page's cursor; the cursors of the pages seen are kept, so
 * "Previous" goes back without the API knowing offsets.
 */
export function usePager(resetKey: string) {
  const [cursors, setCursors] = useState<string[]>([]);
  useEffect(() => setCursors([]), [resetKey]);
  return {
    cursor: cursors[cursors.length - 1] ?? null,
    page: cursors.length + 1,
    next: (cursor: string) => setCursors((list) => [...list, cursor]),
    previous: () => setCursors((list) => list.slice(0, -1)),
  };
}

export function Pager(props: { page: number; nextCursor: string | null | undefined; onNext: (cursor: string) => void; onPrevious: () => void }) {
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={props.page === 1} onClick={props.onPrevious}>
        ← Previous
      </button>
      <span aria-live="polite">Page {props.page}</span>
      <button type="button" disabled={!props.nextCursor} onClick={() => props.nextCursor && props.onNext(props.nextCursor)}>
        Next →
      </button>
    </nav>
  );
}

export function formatDate(value: string | null | undefined): string {
  if (!value) return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** A value of any shape, shown readably: what the API adds later still shows without a change here. */
export function Value(props: { value: unknown }): preact.JSX.Element {
  const value = props.value;
  if (value === null || value === undefined || value === '') return <span class="muted">—</span>;
  if (Array.isArray(value)) {
    if (value.length === 0) return <span class="muted">none</span>;
    return (
      <ul class="plain">
        {value.map((item, index) => (
          <li key={index}>
            <Value value={item} />
          </li>
        ))}
      </ul>
    );
  }
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    if ('name' in record && 'id' in record && Object.keys(record).length <= 3) return <span>{String(record.name)}</span>;
    if ('type' in record && 'value' in record && Object.keys(record).length === 2) return <span>{`${String(record.type)}: ${String(record.value)}`}</span>;
    if (Object.keys(record).length === 0) return <span class="muted">none</span>;
    return (
      <dl class="inline">
        {Object.entries(record).map(([key, item]) => (
          <div key={key}>
            <dt>{key}</dt>
            <dd>
              <Value value={item} />
            </dd>
          </div>
        ))}
      </dl>
    );
  }
  if (typeof value === 'boolean') return <span>{value ? 'yes' : 'no'}</span>;
  return <span>{String(value)}</span>;
}

export function CopyText(props: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="copy">
      <pre tabIndex={0} aria-label={props.label}>
        {props.text}
      </pre>
      <button
        type="button"
        onClick={() => {
          void navigator.clipboard?.writeText(props.text).then(() => setCopied(true));
        }}
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  );
}
