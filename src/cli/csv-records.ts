/**
 * CSV rows as the records of a JSON import: a header row names the columns by the records' JSON field
 * names, and each cell is given the type its field's schema takes, so that the records meet the same
 * checks (and faults) as the JSON ones. The rules (docs/prospector.md):
 * - an empty cell is a field left out (null, or [] for a list);
 * - a list field (`technologies`, `skills`, `linkedInHandles`) is one cell of `;`-separated items;
 * - a field of an object is a column named by its path (`location.city`, `revenueRange.min`); the object
 *   is left out when all its cells are empty;
 * - a cell of a numeric field that reads as a number is that number; any other text stays text, so that
 *   the check names it (`field "employees" must be integer`), as it would for `"5"` in JSON.
 */

interface JsonSchema {
  type?: string;
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
}

type CellKind = 'text' | 'number' | 'list';

interface Column {
  /** The field's path: `name`, or `location.city`. */
  path: [string] | [string, string];
  kind: CellKind;
}

/** The kinds a field's schema may take, unions unwrapped. */
function typesOf(schema: JsonSchema): JsonSchema[] {
  return schema.anyOf ? schema.anyOf.flatMap(typesOf) : [schema];
}

function kindOf(schema: JsonSchema): CellKind {
  const types = typesOf(schema).map((each) => each.type);
  if (types.includes('array')) return 'list';
  return types.includes('integer') || types.includes('number') ? 'number' : 'text';
}

/** Every column a record's schema allows, by name: its top-level fields, and one per field of its object fields. */
export function columnsOf(schema: object): Map<string, Column> {
  const columns = new Map<string, Column>();
  for (const [field, fieldSchema] of Object.entries((schema as JsonSchema).properties ?? {})) {
    const object = typesOf(fieldSchema).find((each) => each.type === 'object');
    if (object) {
      for (const [inner, innerSchema] of Object.entries(object.properties ?? {}))
        columns.set(`${field}.${inner}`, { path: [field, inner], kind: kindOf(innerSchema) });
    } else {
      columns.set(field, { path: [field], kind: kindOf(fieldSchema) });
    }
  }
  return columns;
}

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

function cellValue(cell: string, kind: CellKind): unknown {
  if (kind === 'list') return cell.split(';');
  if (kind === 'number' && NUMBER.test(cell.trim())) return Number(cell.trim());
  return cell;
}

export type RowReader = (cells: string[]) => { value: Record<string, unknown> } | { problem: string };

/**
 * How the rows under `header` become records of `schema`; a header naming a column the records do not
 * have, or naming one twice, is refused with every such fault.
 */
export function csvRowReader(schema: object, header: string[]): { read: RowReader } | { faults: string[] } {
  const known = columnsOf(schema);
  const faults: string[] = [];
  const columns: Column[] = [];
  for (const [index, given] of header.entries()) {
    const name = given.trim();
    const column = known.get(name);
    if (column === undefined)
      faults.push(`column ${index + 1} ${JSON.stringify(given)} is not a field of the records (the columns are ${[...known.keys()].join(', ')})`);
    else if (header.slice(0, index).some((earlier) => earlier.trim() === name)) faults.push(`column ${index + 1} ${JSON.stringify(name)} is named twice`);
    else columns.push(column);
  }
  if (faults.length) return { faults };
  return {
    read(cells) {
      if (cells.length !== columns.length) return { problem: `${cells.length} cells where the header has ${columns.length} columns` };
      const value: Record<string, unknown> = {};
      for (const [index, column] of columns.entries()) {
        const cell = cells[index]!;
        if (cell === '') continue;
        const [field, inner] = column.path;
        if (inner === undefined) value[field] = cellValue(cell, column.kind);
        else ((value[field] ??= {}) as Record<string, unknown>)[inner] = cellValue(cell, column.kind);
      }
      return { value };
    },
  };
}
