import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every relative import and re-export of a file (type-only ones too: a cycle of types is still a knot). */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
  return importedFiles
    .map((imported) => imported.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => path.resolve(path.dirname(file), name));
}

/** One cycle of the graph as the path that closes it, or null when there is none (depth-first, three colours). */
function findCycle(graph: ReadonlyMap<string, readonly string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const trail: string[] = [];
  for (const start of graph.keys()) {
    if (state.has(start)) continue;
    // An explicit stack of [node, index of the next edge], so a deep graph cannot exhaust the call stack.
    const stack: [string, number][] = [[start, 0]];
    state.set(start, 'open');
    trail.push(start);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const edges = graph.get(top[0]) ?? [];
      if (top[1] === edges.length) {
        state.set(top[0], 'done');
        trail.pop();
        stack.pop();
        continue;
      }
      const next = edges[top[1]++]!;
      if (state.get(next) === 'open') return [...trail.slice(trail.indexOf(next)), next];
      if (!state.has(next)) {
        state.set(next, 'open');
        trail.push(next);
        stack.push([next, 0]);
      }
    }
  }
  return null;
}

describe('the import graph of src', () => {
  it('finds a cycle where there is one', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c', 'd']],
      ['c', []],
      ['d', ['b']],
    ]);
    expect(findCycle(graph)).toEqual(['b', 'd', 'b']);
    expect(
      findCycle(
        new Map([
          ['a', ['b']],
          ['b', []],
        ]),
      ),
    ).toBeNull();
  });

  it('has no cycle', () => {
    const graph = new Map(sourceFiles(SRC).map((file) => [file, importsOf(file)]));
    const cycle = findCycle(graph);
    expect(cycle?.map((file) => path.relative(SRC, file)) ?? null).toBeNull();
  });
});
