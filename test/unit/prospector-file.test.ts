import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { columnsOf, csvRowReader } from '../../src/cli/csv-records.ts';
import { planFileImport } from '../../src/cli/prospector-import.ts';
import { csvRows, fileLines, formatOf } from '../../src/cli/record-files.ts';
import { CompanyRecordSchema, ContactRecordSchema, type ProspectorImportService } from '../../src/modules/prospector/index.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-prospector-file-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string | Buffer): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

async function all<T>(rows: AsyncGenerator<T>): Promise<T[]> {
  const found: T[] = [];
  for await (const row of rows) found.push(row);
  return found;
}

describe('prospector files: rows, lines and offsets', () => {
  it('JSON Lines: each line with its number and the byte past it, from any line start; \\r\\n and a BOM are not content', async () => {
    const file = write('a.jsonl', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}\r\n\r\n{"b":"é"}\n{"c":3}')]));
    const lines = await all(fileLines(file, { byteOffset: 0, line: 0 }));
    expect(lines).toEqual([
      { line: 1, endOffset: 12, value: '{"a":1}' },
      { line: 2, endOffset: 14, value: '' },
      { line: 3, endOffset: 25, value: '{"b":"é"}' },
      { line: 4, endOffset: 32, value: '{"c":3}' },
    ]);
    expect(await all(fileLines(file, { byteOffset: 14, line: 2 }))).toEqual(lines.slice(2));
  });

  it('CSV: a row is named by its first line, also when a quoted cell spans lines, in \\n and \\r\\n files alike', async () => {
    for (const newline of ['\n', '\r\n']) {
      const text = ['a,b', `1,"x${newline}y"`, '', '  ', '3,4', '5,6'].join(newline);
      const file = write('a.csv', text);
      const rows = await all(csvRows(file, { byteOffset: 0, line: 0 }));
      expect(rows.map((row) => [row.line, row.value])).toEqual([
        [1, ['a', 'b']],
        [2, ['1', `x${newline}y`]],
        [6, ['3', '4']],
        [7, ['5', '6']],
      ]);
      expect(rows.at(-1)!.endOffset).toBe(Buffer.byteLength(text));
      // From the end of a row, as a resumed import reads.
      expect((await all(csvRows(file, { byteOffset: rows[1]!.endOffset, line: 3 }))).map((row) => row.line)).toEqual([6, 7]);
    }
  });

  it('CSV that stops being CSV is named by the line its bad row starts on', async () => {
    const file = write('b.csv', 'a,b\r\n1,2\r\n3,"4\r\n');
    await expect(all(csvRows(file, { byteOffset: 0, line: 0 }))).rejects.toMatchObject({
      line: 3,
      message: expect.stringMatching(/^not CSV \(Quote Not Closed/),
    });
  });

  it('tells the format by the extension, else by the first byte', async () => {
    expect(await formatOf(write('x.csv', '{"a":1}'))).toBe('csv');
    expect(await formatOf(write('x.ndjson', 'a,b'))).toBe('jsonl');
    expect(await formatOf(write('x.txt', '\n  {"a":1}'))).toBe('jsonl');
    expect(await formatOf(write('y.txt', 'domain,name'))).toBe('csv');
  });
});

describe('CSV rows as import records', () => {
  it("columns are the record fields, an object field's by their path", () => {
    expect([...columnsOf(CompanyRecordSchema).keys()]).toEqual([
      'domain',
      'name',
      'description',
      'primaryWebsite',
      'logoUrl',
      'industry',
      'subIndustry',
      'employees',
      'raised',
      'linkedInHandles',
      'technologies',
      'location.address',
      'location.city',
      'location.state',
      'location.country',
      'location.countryCode',
      'revenueRange.min',
      'revenueRange.max',
      'score',
    ]);
  });

  it('types each cell as its field takes it; empty cells are fields left out; lists split on ";"', () => {
    const reader = csvRowReader(CompanyRecordSchema, [
      'domain',
      'name',
      'employees',
      'industry',
      'technologies',
      'location.city',
      'revenueRange.min',
      'revenueRange.max',
    ]);
    if (!('read' in reader)) throw new Error('refused');
    expect(reader.read(['acme.com', '12', '42', '541511', 'Stripe;PostgreSQL', 'Austin', '', '1e6'])).toEqual({
      value: {
        domain: 'acme.com',
        name: '12',
        employees: 42,
        industry: 541511,
        technologies: ['Stripe', 'PostgreSQL'],
        location: { city: 'Austin' },
        revenueRange: { max: 1e6 },
      },
    });
    // Text where a number belongs stays text, for the check to name; an empty row leaves every field out.
    expect(reader.read(['acme.com', 'Acme', 'many', 'naics_541511', '', '', '', ''])).toEqual({
      value: { domain: 'acme.com', name: 'Acme', employees: 'many', industry: 'naics_541511' },
    });
    expect(reader.read(['acme.com'])).toEqual({ problem: '1 cells where the header has 8 columns' });
  });

  it('a header with a column the records do not have, or one twice, is refused', () => {
    expect(csvRowReader(ContactRecordSchema, ['linkedInHandle', 'fullName', 'email', 'fullName '])).toEqual({
      faults: [
        expect.stringMatching(/^column 3 "email" is not a field of the records \(the columns are linkedInHandle, fullName, name, /),
        'column 4 "fullName" is named twice',
      ],
    });
  });

  it('a file whose first record names neither key needs --kind', async () => {
    const unused = {} as ProspectorImportService;
    await expect(planFileImport(unused, { file: write('what.jsonl', '{"name": "Nameless"}\n'), kind: null, restart: false })).rejects.toThrow(
      'holds companies or contacts (a company has a domain or primaryWebsite, a contact a linkedInHandle): give --kind',
    );
    await expect(planFileImport(unused, { file: write('what.csv', 'name,linkedInHandle,domain\n'), kind: null, restart: false })).rejects.toThrow(
      'give --kind',
    );
  });
});
