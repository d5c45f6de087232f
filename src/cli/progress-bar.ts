import type { ImportProgress } from './objects-import.ts';

/** One line of progress: `[#####-----] 1000/2000 lines (50%)  812 lines/s`. */
export function renderProgress(done: number, total: number, elapsedMs: number, width = 30, unit = 'lines'): string {
  const fraction = total > 0 ? Math.min(1, done / total) : 1;
  const filled = Math.round(fraction * width);
  const rate = elapsedMs > 0 ? Math.round((done * 1000) / elapsedMs) : 0;
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} ${unit} (${Math.floor(fraction * 100)}%)  ${rate} ${unit}/s`;
}

/**
 * A progress bar redrawn in place on a terminal (for stderr, so stdout keeps only the result). Redraws are
 * at most every `intervalMs`: a terminal that repaints for every line would slow the import down.
 */
export function terminalProgress(stream: { write(text: string): unknown }, now: () => number = Date.now, intervalMs = 100, unit = 'lines'): ImportProgress {
  let total = 0;
  let done = 0;
  let started = 0;
  let drawn = -Infinity;
  const draw = () => {
    drawn = now();
    stream.write(`\r\x1b[K${renderProgress(done, total, drawn - started, 30, unit)}`);
  };
  return {
    start(lines) {
      total = lines;
      started = now();
      draw();
    },
    update(lines) {
      done = lines;
      if (now() - drawn >= intervalMs) draw();
    },
    finish() {
      draw();
      stream.write('\n');
    },
  };
}

/**
 * Progress where no terminal shows it (a log, a pipe): one plain line per update, `importing: 3000/30000
 * lines (10%)`. Callers update once per chunk, not per line, so the lines stay few.
 */
export function lineProgress(stream: { write(text: string): unknown }, label: string, unit = 'lines'): ImportProgress {
  let total = 0;
  return {
    start(lines) {
      total = lines;
    },
    update(lines) {
      const share = total > 0 ? Math.floor((Math.min(lines, total) / total) * 100) : 100;
      stream.write(`${label}: ${lines}/${total} ${unit} (${share}%)\n`);
    },
    finish() {},
  };
}
