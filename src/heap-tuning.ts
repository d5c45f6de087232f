import v8 from 'node:v8';

/**
 * Turns off V8's allocation-site pretenuring for this process; `hearth serve` calls it before it opens the
 * database. Pretenuring allocates the objects of an allocation site straight in the old generation once
 * enough of them have outlived a young-generation collection. In a server, the sites that make a query's
 * rows (node-postgres's row and value parsing) see long-lived results while the process starts (migrations,
 * catalogues, caches) and were then pretenured for good: every request's rows, garbage a few milliseconds
 * later, went to the old generation, which grew by megabytes between collections and made each young
 * collection several times slower. A list request cost about twice the CPU of a bare server running the
 * same statement; without pretenuring, their old generation stays flat (docs/performance.md, "Garbage
 * collection").
 *
 * V8 reads the flag at each collection, so setting it at run time takes effect from the next one.
 */
export function tuneHeap(): void {
  v8.setFlagsFromString('--no-allocation-site-pretenuring');
}
