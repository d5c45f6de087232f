/**
 * Search everywhere: one box in the header (`/` focuses it from anywhere but a text field) that finds, as
 * the person types, contacts, organizations and segments (GET /api/v2/search). It is a WAI-ARIA combobox:
 * the input owns a listbox of options grouped by kind; arrow keys move the active option (announced through
 * aria-activedescendant, focus stays in the input), Enter opens it, Escape closes the list (and, when it is
 * closed, clears the box). Requests wait for a pause in typing, and an answer to an older query is ignored.
 */
import type { components } from '@hearth/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { hearth, ok } from './api.ts';
import { navigate } from './router.ts';

type Results = components['schemas']['SearchResults'];

interface Option {
  id: string;
  kind: 'contacts' | 'organizations' | 'segments';
  label: string;
  detail: string;
  path: string;
}

const DEBOUNCE_MS = 150;
const GROUPS: { kind: Option['kind']; label: string }[] = [
  { kind: 'contacts', label: 'Contacts' },
  { kind: 'organizations', label: 'Organizations' },
  { kind: 'segments', label: 'Segments' },
];

function optionsOf(results: Results): Option[] {
  const matched = (field: string, value: string, platform?: string) =>
    field === 'name' ? '' : `${field === 'handle' && platform ? `${platform} ` : field === 'email' ? '' : `${field} `}${value}`;
  return [
    ...results.contacts.map((row) => ({
      id: row.id,
      kind: 'contacts' as const,
      label: row.name,
      detail: matched(row.matched.field, row.matched.value, row.matched.platform),
      path: `/contacts/${row.id}`,
    })),
    ...results.organizations.map((row) => ({
      id: row.id,
      kind: 'organizations' as const,
      label: row.name,
      detail: row.matched.field === 'domain' ? row.matched.value : row.domain,
      path: `/organizations/${row.id}`,
    })),
    ...results.segments.map((row) => ({
      id: row.id,
      kind: 'segments' as const,
      label: row.name,
      detail: `${row.entityType} segment`,
      path: `/segments/${row.id}`,
    })),
  ];
}

/** A key press that should type into what has focus, not move it to the search box. */
function typesText(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

export function SearchBox() {
  const input = useRef<HTMLInputElement>(null);
  const [text, setText] = useState('');
  const [options, setOptions] = useState<Option[]>([]);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const [status, setStatus] = useState('');
  // The latest query sent: an answer to any other arrives late and is dropped.
  const latest = useRef(0);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== '/' || event.metaKey || event.ctrlKey || event.altKey || typesText(event.target)) return;
      event.preventDefault();
      input.current?.focus();
      input.current?.select();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  useEffect(() => {
    const query = text.trim();
    const sent = ++latest.current;
    if (query === '') {
      setOptions([]);
      setOpen(false);
      setStatus('');
      return;
    }
    const timer = setTimeout(() => {
      ok(hearth.GET('/api/v2/search', { params: { query: { query: query.slice(0, 200), limit: 5 } } })).then(
        (answer) => {
          if (sent !== latest.current) return;
          const found = optionsOf(answer.data);
          setOptions(found);
          setActive(-1);
          setOpen(true);
          setStatus(found.length === 0 ? 'No matches' : `${found.length} result${found.length === 1 ? '' : 's'}`);
        },
        (failure: unknown) => {
          if (sent !== latest.current) return;
          setOptions([]);
          setOpen(true);
          setStatus(failure instanceof Error ? failure.message : 'Search failed');
        },
      );
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text]);

  const close = () => {
    setOpen(false);
    setActive(-1);
  };
  const openOption = (option: Option) => {
    close();
    setText('');
    navigate(option.path);
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      if (!open) {
        if (options.length > 0) setOpen(true);
        setActive(event.key === 'ArrowDown' ? 0 : options.length - 1);
        return;
      }
      if (options.length === 0) return;
      const count = options.length;
      if (event.key === 'ArrowDown') setActive((current) => (current < 0 ? 0 : (current + 1) % count));
      else setActive((current) => (current <= 0 ? count - 1 : current - 1));
    } else if (event.key === 'Enter') {
      const option = options[active] ?? (open && options.length > 0 ? options[0] : undefined);
      if (option) {
        event.preventDefault();
        openOption(option);
      }
    } else if (event.key === 'Escape') {
      event.preventDefault();
      if (open) close();
      else setText('');
    }
  };

  const optionId = (index: number) => `search-option-${index}`;
  const expanded = open && options.length > 0;
  return (
    <div class="search" role="search">
      <input
        ref={input}
        type="search"
        class="search-input"
        role="combobox"
        aria-label="Search contacts, organizations and segments"
        aria-keyshortcuts="/"
        aria-autocomplete="list"
        aria-expanded={expanded ? 'true' : 'false'}
        aria-controls="search-results"
        aria-activedescendant={expanded && active >= 0 ? optionId(active) : undefined}
        placeholder="Search  /"
        autocomplete="off"
        spellcheck={false}
        maxLength={200}
        value={text}
        onInput={(event) => setText(event.currentTarget.value)}
        onKeyDown={onKeyDown}
        onBlur={() => setTimeout(close, 150)}
        onFocus={() => options.length > 0 && setOpen(true)}
      />
      <div id="search-results" role="listbox" aria-label="Search results" class="search-results" hidden={!expanded}>
        {GROUPS.map((group) => {
          const members = options.map((option, index) => ({ option, index })).filter(({ option }) => option.kind === group.kind);
          if (members.length === 0) return null;
          return (
            <div role="group" aria-labelledby={`search-group-${group.kind}`} key={group.kind}>
              <div role="presentation" id={`search-group-${group.kind}`} class="search-group">
                {group.label}
              </div>
              {members.map(({ option, index }) => (
                <div
                  key={option.id}
                  id={optionId(index)}
                  role="option"
                  aria-selected={index === active ? 'true' : 'false'}
                  class={index === active ? 'search-option active' : 'search-option'}
                  // mousedown, not click: the input's blur would close the list before a click arrived.
                  onMouseDown={(event) => {
                    event.preventDefault();
                    openOption(option);
                  }}
                  onMouseMove={() => setActive(index)}
                >
                  <span class="search-label">{option.label}</span>
                  {option.detail ? <span class="muted search-detail">{option.detail}</span> : null}
                </div>
              ))}
            </div>
          );
        })}
      </div>
      {open && options.length === 0 && status ? <div class="search-results search-empty">{status}</div> : null}
      <div class="visually-hidden" role="status" aria-live="polite">
        {status}
      </div>
    </div>
  );
}
