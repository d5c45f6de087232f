/**
 * Charts of the console, drawn by uPlot on a canvas. A canvas says nothing to a screen reader or a keyboard,
 * so each chart is a figure named by its title, with its numbers in a table (hidden until asked for, still
 * read by screen readers) whose cells are the same links the chart's bars open.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';

/** A stacked part of each bar: its name and one value per bucket; `href` is the list a bucket's part counts. */
export interface BarGroup {
  key: string;
  name: string;
  values: number[];
  href?: (bucket: number) => string | null;
}

export interface BarChartProps {
  /** The chart's accessible name, shown as its caption. */
  title: string;
  /** What each bucket is called in the table, the axis and the readout ("3 Mar", "week of 3 Mar", "40–59"), in order. */
  labels: string[];
  groups: BarGroup[];
  /** A line over the bars (the previous period's totals), one value per bucket. */
  line?: { name: string; values: (number | null)[] };
  /** A bucket's column heading in the table ("Day", "Week", "Score"). */
  bucketHeading: string;
  /** Opens what a click on a bar's part counts; without it the bars are not links. */
  onSelect?: (href: string) => void;
  height?: number;
  children?: ComponentChildren;
}

/** The chart palette (style.css `--chart-N`, set for light and dark backgrounds): Okabe and Ito's colours, told apart with most colour blindness. */
const PALETTE_SIZE = 8;

function cssVar(name: string, fallback: string): string {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value || fallback;
}

export function chartColour(index: number): string {
  return cssVar(`--chart-${(index % PALETTE_SIZE) + 1}`, '#0072b2');
}

/** Stacking done in the data, as uPlot's demos do: series k is the sum of groups 0..k, drawn largest first, so each shows its own part above the one below. */
function stacked(groups: BarGroup[], length: number): number[][] {
  const sums: number[][] = [];
  let running = new Array<number>(length).fill(0);
  for (const group of groups) {
    running = running.map((value, i) => value + (group.values[i] ?? 0));
    sums.push(running);
  }
  return sums;
}

export function BarChart(props: BarChartProps) {
  const holder = useRef<HTMLDivElement>(null);
  const readout = useRef<HTMLDivElement>(null);
  const [showTable, setShowTable] = useState(false);
  const id = useRef(`chart-${Math.random().toString(36).slice(2, 9)}`).current;
  const { labels, groups, line } = props;
  // Buckets sit at 0, 1, 2, … on the x axis: weeks cut by the period's ends are not all as long, and bars of one width read better.
  const x = labels.map((_, i) => i);
  const sums = stacked(groups, x.length);
  const totals = sums[sums.length - 1] ?? new Array<number>(x.length).fill(0);
  // The part of bucket `i` at value `y`: the first group whose running sum reaches it.
  const hrefAt = (i: number, y: number): string | null => {
    if (y < 0 || y > (totals[i] ?? 0)) return null;
    const index = sums.findIndex((sum) => (sum[i] ?? 0) >= y && (sum[i] ?? 0) > 0);
    const group = groups[index];
    return group && (group.values[i] ?? 0) > 0 ? (group.href?.(i) ?? null) : null;
  };
  const key = JSON.stringify([labels, groups.map((group) => [group.key, group.name, group.values, labels.map((_, i) => group.href?.(i))]), line]);
  useEffect(() => {
    const element = holder.current;
    if (!element) return;
    const width = () => Math.max(280, element.clientWidth);
    // At most about eight labels under the axis.
    const every = Math.max(1, Math.ceil(labels.length / 8));
    const fg = cssVar('--fg', '#1d2330');
    const grid = cssVar('--line', '#d9dde4');
    const bars = uPlot.paths.bars!({ size: [0.7, 64], align: 0 });
    const series: uPlot.Series[] = [{}];
    // Largest running sum first: the later (smaller) ones are drawn over it.
    for (let index = groups.length - 1; index >= 0; index -= 1) {
      series.push({ label: groups[index]!.name, fill: chartColour(index), stroke: chartColour(index), width: 0, paths: bars, points: { show: false } });
    }
    const data: uPlot.AlignedData = [x, ...sums.slice().reverse()];
    if (line) {
      series.push({ label: line.name, stroke: fg, width: 2, dash: [6, 4], points: { show: true, size: 5, fill: fg }, spanGaps: false });
      data.push(line.values);
    }
    const maxY = Math.max(1, ...totals, ...(line?.values ?? []).map((value) => value ?? 0));
    const plot = new uPlot(
      {
        width: width(),
        height: props.height ?? 240,
        legend: { show: false },
        cursor: { drag: { x: false, y: false }, points: { show: false }, y: false },
        scales: {
          // Each bar centred on its bucket, half a bucket of room at both ends.
          x: { time: false, range: () => [-0.5, labels.length - 0.5] },
          y: { range: () => [0, Math.ceil(maxY * 1.1)] },
        },
        axes: [
          {
            stroke: fg,
            grid: { show: false },
            ticks: { stroke: grid },
            splits: () => x.filter((i) => i % every === 0),
            values: (_: uPlot, splits: number[]) => splits.map((split) => labels[split] ?? ''),
          },
          { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } },
        ],
        series,
        hooks: {
          setCursor: [
            (u) => {
              const i = u.cursor.idx;
              if (!readout.current) return;
              if (i === null || i === undefined) {
                readout.current.textContent = '';
                return;
              }
              const parts = groups.filter((group) => (group.values[i] ?? 0) > 0).map((group) => `${group.name} ${group.values[i]}`);
              const previous = line && line.values[i] !== null && line.values[i] !== undefined ? `; ${line.name.toLowerCase()} ${line.values[i]}` : '';
              readout.current.textContent = `${labels[i]}: ${totals[i] ?? 0}${parts.length ? ` (${parts.join(', ')})` : ''}${previous}`;
            },
          ],
        },
      },
      data,
      element,
    );
    // A click on a bar's part opens the list it counts.
    const over = plot.over;
    const onClick = (event: MouseEvent) => {
      if (!props.onSelect) return;
      const box = over.getBoundingClientRect();
      const i = plot.posToIdx(event.clientX - box.left);
      const y = plot.posToVal(event.clientY - box.top, 'y');
      const href = i >= 0 && i < x.length ? hrefAt(i, y) : null;
      if (href) props.onSelect(href);
    };
    const onMove = (event: MouseEvent) => {
      const box = over.getBoundingClientRect();
      const i = plot.posToIdx(event.clientX - box.left);
      over.style.cursor = props.onSelect && hrefAt(i, plot.posToVal(event.clientY - box.top, 'y')) ? 'pointer' : 'default';
    };
    over.addEventListener('click', onClick);
    over.addEventListener('mousemove', onMove);
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: props.height ?? 240 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      over.removeEventListener('click', onClick);
      over.removeEventListener('mousemove', onMove);
      plot.destroy();
    };
  }, [key]);
  const captionId = `${id}-caption`;
  return (
    <figure class="chart" aria-labelledby={captionId}>
      <figcaption id={captionId}>{props.title}</figcaption>
      {groups.length > 1 || line ? (
        <ul class="chart-legend" aria-hidden="true">
          {groups.map((group, index) => (
            <li key={group.key}>
              <span class="swatch" style={{ background: chartColour(index) }} />
              {group.name}
            </li>
          ))}
          {line ? (
            <li>
              <span class="swatch swatch-line" />
              {line.name}
            </li>
          ) : null}
        </ul>
      ) : null}
      <div ref={holder} class="chart-canvas" role="img" aria-label={`${props.title}: chart; the table below has its numbers`} />
      <div ref={readout} class="chart-readout muted" aria-hidden="true" />
      {props.children}
      <button type="button" class="link" aria-expanded={showTable} aria-controls={`${id}-table`} onClick={() => setShowTable(!showTable)}>
        {showTable ? 'Hide the numbers' : 'Show the numbers'}
      </button>
      <div id={`${id}-table`} class={showTable ? 'chart-table' : 'visually-hidden'}>
        <table>
          <caption>{props.title}</caption>
          <thead>
            <tr>
              <th scope="col">{props.bucketHeading}</th>
              {groups.length > 1
                ? groups.map((group) => (
                    <th scope="col" key={group.key}>
                      {group.name}
                    </th>
                  ))
                : null}
              <th scope="col">{groups.length > 1 ? 'Total' : (groups[0]?.name ?? 'Count')}</th>
              {line ? <th scope="col">{line.name}</th> : null}
            </tr>
          </thead>
          <tbody>
            {labels.map((label, i) => (
              <tr key={label}>
                <th scope="row">{label}</th>
                {groups.length > 1
                  ? groups.map((group) => (
                      <td key={group.key}>
                        <Count value={group.values[i] ?? 0} href={group.href?.(i) ?? null} />
                      </td>
                    ))
                  : null}
                <td>{groups.length === 1 ? <Count value={groups[0]!.values[i] ?? 0} href={groups[0]!.href?.(i) ?? null} /> : (totals[i] ?? 0)}</td>
                {line ? <td>{line.values[i] ?? '—'}</td> : null}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}

/** A number, linked to the list it counts when there is one and it is not zero. */
function Count(props: { value: number; href: string | null }) {
  return props.href && props.value > 0 ? <a href={props.href}>{props.value}</a> : <>{props.value}</>;
}
