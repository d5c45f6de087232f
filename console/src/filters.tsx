import type { operations } from '@hearth/client';
import { useState } from 'preact/hooks';
import { hearth } from './api.ts';
import { useApi } from './ui.tsx';

/** A field a list's lightFilter may name, with its clause kinds and operators (`GET /api/v2/filter-fields`). */
type FilterField = operations['listFilterFields']['responses'][200]['content']['application/json']['data'][number];

export interface Clause {
  field: string;
  op: string;
  value: string;
}

const OP_LABELS: Record<string, string> = {
  eq: 'is',
  like: 'contains',
  startsWith: 'starts with',
  any: 'is any of',
  all: 'has all of',
  none: 'has none of',
  gt: '>',
  gte: '≥',
  lt: '<',
  lte: '≤',
  in: 'within (ISO duration, e.g. P30D)',
};

/** The lightFilter clause of a row: the kind follows from the field's kinds and the chosen operator. */
function clauseOf(fields: FilterField[], row: Clause): object | null {
  const field = fields.find((candidate) => candidate.field === row.field);
  if (!field || row.value.trim() === '') return null;
  const value = row.value.trim();
  if (field.kinds.includes('numberFilter')) return { type: 'numberFilter', field: row.field, params: { op: row.op, value: Number(value) } };
  if (field.kinds.includes('booleanFilter')) return { type: 'booleanFilter', field: row.field, params: { op: 'eq', value: value === 'true' } };
  if (field.kinds.includes('dateRangeFilter')) return { type: 'dateRangeFilter', field: row.field, params: { op: 'in', value } };
  if (['any', 'all', 'none'].includes(row.op)) {
    return {
      type: 'stringListFilter',
      field: row.field,
      params: {
        op: row.op,
        value: value
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean),
      },
    };
  }
  return { type: 'stringFilter', field: row.field, params: { op: row.op, value } };
}

export function lightFilterOf(fields: FilterField[], rows: Clause[]): string | null {
  const clauses = rows.map((row) => clauseOf(fields, row)).filter((clause) => clause !== null);
  return clauses.length ? JSON.stringify({ type: 'and', clauses }) : null;
}

/**
 * Filters built from the list's own fields (`GET /api/v2/filter-fields`): custom fields and lead scores
 * of the community appear without a change to the console.
 */
export function FilterBuilder(props: { entity: string; onApply: (lightFilter: string | null) => void }) {
  const fields = useApi(() => hearth.GET('/api/v2/filter-fields', { params: { query: { entity: props.entity } } }), [props.entity]);
  const [rows, setRows] = useState<Clause[]>([]);
  const list = fields.data?.data ?? [];
  const opsOf = (name: string) => {
    const field = list.find((candidate) => candidate.field === name);
    if (!field) return [];
    return field.kinds.includes('dateRangeFilter') ? ['in'] : field.kinds.includes('booleanFilter') ? ['eq'] : field.ops;
  };
  const update = (index: number, change: Partial<Clause>) =>
    setRows((current) =>
      current.map((row, i) => {
        if (i !== index) return row;
        const next = { ...row, ...change };
        if (change.field !== undefined && !opsOf(change.field).includes(next.op)) next.op = opsOf(change.field)[0] ?? 'eq';
        return next;
      }),
    );
  return (
    <form
      class="filters"
      aria-label="Filters"
      onSubmit={(event) => {
        event.preventDefault();
        props.onApply(lightFilterOf(list, rows));
      }}
    >
      {rows.map((row, index) => (
        <fieldset class="filter-row" key={index}>
          <legend class="visually-hidden">Filter {index + 1}</legend>
          <label class="visually-hidden" for={`filter-${index}-field`}>
            Field of filter {index + 1}
          </label>
          <select id={`filter-${index}-field`} value={row.field} onChange={(event) => update(index, { field: event.currentTarget.value })}>
            {list.map((field) => (
              <option key={field.field} value={field.field}>
                {field.field}
              </option>
            ))}
          </select>
          <label class="visually-hidden" for={`filter-${index}-op`}>
            Operator of filter {index + 1}
          </label>
          <select id={`filter-${index}-op`} value={row.op} onChange={(event) => update(index, { op: event.currentTarget.value })}>
            {opsOf(row.field).map((op) => (
              <option key={op} value={op}>
                {OP_LABELS[op] ?? op}
              </option>
            ))}
          </select>
          <label class="visually-hidden" for={`filter-${index}-value`}>
            Value of filter {index + 1}
          </label>
          <input
            id={`filter-${index}-value`}
            value={row.value}
            placeholder={['any', 'all', 'none'].includes(row.op) ? 'a, b, c' : 'value'}
            onInput={(event) => update(index, { value: event.currentTarget.value })}
          />
          <button type="button" class="link" onClick={() => setRows((current) => current.filter((_, i) => i !== index))}>
            Remove<span class="visually-hidden"> filter {index + 1}</span>
          </button>
        </fieldset>
      ))}
      <div class="filter-actions">
        <button
          type="button"
          disabled={list.length === 0}
          onClick={() => setRows((current) => [...current, { field: list[0]!.field, op: opsOf(list[0]!.field)[0] ?? 'eq', value: '' }])}
        >
          + Add filter
        </button>
        <button type="submit" class="primary">
          Apply filters
        </button>
        {rows.length > 0 ? (
          <button
            type="button"
            class="link"
            onClick={() => {
              setRows([]);
              props.onApply(null);
            }}
          >
            Clear
          </button>
        ) : null}
      </div>
    </form>
  );
}
