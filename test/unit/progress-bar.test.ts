import { describe, expect, it } from 'vitest';
import { renderProgress, terminalProgress } from '../../src/cli/progress-bar.ts';

describe('import progress bar', () => {
  it('shows lines done of the total, the share and the rate', () => {
    expect(renderProgress(0, 2000, 0, 10)).toBe('[----------] 0/2000 lines (0%)  0 lines/s');
    expect(renderProgress(1000, 2000, 2000, 10)).toBe('[#####-----] 1000/2000 lines (50%)  500 lines/s');
    expect(renderProgress(2000, 2000, 1000, 10)).toBe('[##########] 2000/2000 lines (100%)  2000 lines/s');
    expect(renderProgress(0, 0, 10, 4)).toBe('[####] 0/0 lines (100%)  0 lines/s');
  });

  it('redraws in place at most once per interval, and ends the line when finished', () => {
    let now = 0;
    const written: string[] = [];
    const bar = terminalProgress({ write: (text: string) => written.push(text) }, () => now, 100);
    bar.start(300);
    now = 50;
    bar.update(100);
    now = 100;
    bar.update(200);
    now = 150;
    bar.update(300);
    bar.finish();
    expect(written.map((text) => text.replace('\r\x1b[K', '').replace(/^\[[#-]+\] /, ''))).toEqual([
      '0/300 lines (0%)  0 lines/s',
      '200/300 lines (66%)  2000 lines/s',
      '300/300 lines (100%)  2000 lines/s',
      '\n',
    ]);
  });
});
