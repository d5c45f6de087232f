/** Job titles' expected orders (docs/behaviour.md, Sorting), computed from a map of title to count. */

/** Titles compare as stored, byte by byte (migration 0013). */
export const byTitle = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** Popularity: by count in `direction`, ties by title ascending; alphabetical: by title in `direction`. */
export function expectedTitles(counts: Map<string, number>, sort: 'popularity' | 'alphabetical', direction: 'asc' | 'desc'): string[] {
  const titles = [...counts.keys()].filter((title) => counts.get(title)! > 0);
  if (sort === 'alphabetical') return titles.sort((a, b) => (direction === 'asc' ? byTitle(a, b) : byTitle(b, a)));
  return titles.sort((a, b) => (counts.get(a)! - counts.get(b)!) * (direction === 'asc' ? 1 : -1) || byTitle(a, b));
}
