import type { Summary } from './load.ts';
import type { Machine } from './machine.ts';

/** One line of the results table: a figure, the baseline it is divided by, and the goal of that ratio (none for a comparison only reported). */
export interface Figure {
  name: string;
  /** What the figure is, e.g. "p50 page 1,000". */
  measured: string;
  value: number | null;
  baselineName: string;
  baseline: number | null;
  unit: 'ms' | 'req/s' | 'items/s';
  ratio: number | null;
  goal: { op: '<=' | '>='; value: number } | null;
  /** Why there is no value (the list takes no lightFilter, ...). */
  skipped?: string;
}

/**
 * A figure of two requests' latencies measured side by side (compareLatency): the p50 of `b` against the
 * p50 of `a`, at most `goal`.
 */
export function latencyFigure(name: string, labels: { measured: string; baseline: string }, compared: { a: Summary; b: Summary }, goal: number): Figure {
  return {
    name,
    measured: labels.measured,
    value: compared.b.p50,
    baselineName: labels.baseline,
    baseline: compared.a.p50,
    unit: 'ms',
    ratio: compared.b.p50 / compared.a.p50,
    goal: { op: '<=', value: goal },
  };
}

export function met(figure: Figure): boolean | null {
  if (figure.ratio === null || figure.goal === null) return null;
  return figure.goal.op === '<=' ? figure.ratio <= figure.goal.value : figure.ratio >= figure.goal.value;
}

const fmt = (value: number | null, unit: string) => (value === null ? 'n/a' : `${unit === 'ms' ? value.toFixed(2) : value.toFixed(0)} ${unit}`);

/** The results as a plain-text table, then the machine. */
export function renderTable(figures: Figure[], machine: Machine): string {
  const rows = [
    ['figure', 'measured', 'baseline', 'ratio', 'goal', 'met?'],
    ...figures.map((f) => [
      f.name,
      `${f.measured}: ${fmt(f.value, f.unit)}`,
      `${f.baselineName}: ${fmt(f.baseline, f.unit)}`,
      f.ratio === null ? 'n/a' : f.ratio.toFixed(2),
      f.goal === null ? 'none' : `${f.goal.op === '<=' ? '≤' : '≥'} ${f.goal.value}`,
      f.skipped ? `skipped (${f.skipped})` : f.goal === null ? 'reported' : met(f) ? 'yes' : 'NO',
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  const line = (row: string[]) => row.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ');
  const settings = Object.entries(machine.postgresSettings)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  return [
    line(rows[0]!),
    widths.map((w) => '-'.repeat(w)).join('-|-'),
    ...rows.slice(1).map(line),
    '',
    `Machine: ${machine.cpuModel} × ${machine.cpus} CPUs, ${machine.memoryGiB} GiB, ${machine.os}`,
    `Node ${machine.node}; PostgreSQL ${machine.postgres} (${settings}); load average at start ${machine.loadAverage}` +
      (machine.loadAverageAtEnd === null ? '' : `, at end ${machine.loadAverageAtEnd}`),
  ].join('\n');
}
