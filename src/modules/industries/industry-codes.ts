import fs from 'node:fs';
import path from 'node:path';

/**
 * The NAICS 2022 code list shipped with Hearth (naics-2022.tsv beside this file: every sector, subsector,
 * industry group, NAICS industry and national industry, with its title as the US Census Bureau publishes
 * it; public domain, see the README). Sectors published as ranges (31-33) have a line per two-digit code.
 */
export const NAICS_FILE = path.join(import.meta.dirname, 'naics-2022.tsv');

export interface IndustryCode {
  code: number;
  name: string;
}

export function readIndustryCodes(file = NAICS_FILE): IndustryCode[] {
  const [header, ...lines] = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
  if (header !== 'code\tname') throw new Error(`${file}: the first line must be "code<TAB>name"`);
  return lines.map((line, index) => {
    const [code, name, extra] = line.split('\t');
    if (!code || !/^[0-9]{2,6}$/.test(code) || !name || extra !== undefined)
      throw new Error(`${file}:${index + 2}: expected a code of 2 to 6 digits, a tab and a name`);
    return { code: Number(code), name };
  });
}

/** The migration that loads `codes`: one insert, the codes as integers, the names as SQL strings. */
export function industryCodesSql(codes: IndustryCode[]): string {
  const rows = codes.map(({ code, name }) => `  (${code}, '${name.replaceAll("'", "''")}')`);
  return [
    '-- The NAICS 2022 code list (GET /api/v2/industries), written by scripts/build-reference-data.ts from',
    '-- src/modules/industries/naics-2022.tsv. A later revision of NAICS comes as a new migration.',
    'insert into industry_codes (code, name) values',
    `${rows.join(',\n')}`,
    'on conflict (code) do update set name = excluded.name;',
    '',
  ].join('\n');
}
