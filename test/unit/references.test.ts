import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The repository carries its own account of its rules (docs/behaviour.md and the other pages of docs/), so
 * nothing in it may point to a document that is not in it, nor name a feature by the number of the ticket
 * that asked for it: such a pointer leads nowhere for whoever reads the repository. This scans every tracked
 * text file and names each offending line; say the thing itself, or point to a section of a page in docs/
 * ("docs/behaviour.md, Paging").
 */

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * What may not appear, with why. The patterns are written so that this file does not match them itself:
 * the section sign as an escape, the file names split.
 */
const FORBIDDEN: { pattern: RegExp; why: string }[] = [
  { pattern: new RegExp(['decisions', 'md'].join('\\.'), 'i'), why: 'a document outside the repository' },
  { pattern: new RegExp(['interface', 'md'].join('\\.'), 'i'), why: 'a document outside the repository' },
  { pattern: /\u00a7/, why: 'a section sign: name the section of a page in docs/ instead' },
  { pattern: /\bissue #?\d+/i, why: 'an issue number: say what the issue was about' },
  { pattern: /\(#\d+\)/, why: 'an issue number: say what the issue was about' },
];

/** Every tracked file, as the working tree has it (the check sees edits not yet committed). */
function trackedFiles(): string[] {
  const listing = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return listing.split('\0').filter((name) => name.length > 0);
}

/** The text of a tracked file, or null when it is binary or absent from the working tree (a deletion not yet committed). */
function textOf(file: string): string | null {
  const full = path.join(ROOT, file);
  if (!fs.existsSync(full) || !fs.statSync(full).isFile()) return null;
  const bytes = fs.readFileSync(full);
  if (bytes.subarray(0, 8000).includes(0)) return null;
  return bytes.toString('utf8');
}

/** `file:line: text` for every line of the given files that holds a forbidden reference. */
function offendingLines(files: readonly string[], read: (file: string) => string | null = textOf): string[] {
  const found: string[] = [];
  for (const file of files) {
    const text = read(file);
    if (text === null) continue;
    const lines = text.split('\n');
    lines.forEach((line, index) => {
      // A reference wrapped at the end of a line ("(issue" / "#17)") is read across the break, comment
      // markers of the next line left out.
      const next = (lines[index + 1] ?? '').trimStart().replace(/^(\*|\/\/|--)\s*/, '');
      const hit = FORBIDDEN.find(({ pattern }) => pattern.test(line) || (pattern.test(`${line} ${next}`) && !pattern.test(next)));
      if (hit) found.push(`${file}:${index + 1}: ${hit.why}: ${line.trim().slice(0, 160)}`);
    });
  }
  return found;
}

describe('references in the repository', () => {
  it('finds what it looks for', () => {
    const lines: Record<string, string> = {
      'a.ts': `// See ${'decisions'}.md for the rule.`,
      'b.md': `As ${'interface'}.md says, and ${'\u00a7'}8.`,
      'c.ts': `/** Lead scores (Issue ${'#'}14). */`,
      'd.md': 'Clean text: an issue of a GitHub repository, a colour #fff, a pull request.',
      'e.md': `Asked for in ${'issue'} 12.`,
      'f.md': `Added by the audit log (${'#'}5).`,
      'g.ts': ` * Plans made for empty tables (${'issue'}\n * ${'#'}17) are replaced.`,
      'h.md': 'A repository with issues #1 and #2, a pull request #3.',
    };
    expect(offendingLines(Object.keys(lines), (file) => lines[file]!).map((line) => line.split(':').slice(0, 2).join(':'))).toEqual([
      'a.ts:1',
      'b.md:1',
      'c.ts:1',
      'e.md:1',
      'f.md:1',
      'g.ts:1',
    ]);
  });

  it('has no reference to a document outside it, no section sign and no issue number in any tracked text file', () => {
    const files = trackedFiles();
    expect(files.length).toBeGreaterThan(100);
    expect(offendingLines(files)).toEqual([]);
  });
});
