import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countLines, importObjects, type ImportProgress } from '../../src/cli/objects-import.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { cliWriter } from '../../src/core/writer.ts';

/**
 * What `hearth objects import` does, in process: streaming a JSONL file into the object upsert service in
 * batches, and stopping before the batch of a bad line (test/process/cli-suite.ts runs the command itself).
 */
describe.each(ENGINES)('objects import (%s)', (engine) => {
  let t: TestApp;
  let dir: string;
  let objectTypeId: string;
  let counter = 0;

  function file(lines: string[], ending = '\n'): string {
    const name = path.join(dir, `import-${++counter}.jsonl`);
    fs.writeFileSync(name, lines.join(ending));
    return name;
  }
  const record = (recordKey: string, name = `Object ${recordKey}`) => JSON.stringify({ recordKey, name });
  async function names() {
    const rows = await t.services.db
      .selectFrom('objects')
      .select(['record_key', 'name'])
      .where('community_id', '=', t.communityId)
      .where('object_type_id', '=', Number(objectTypeId.slice(4)))
      .orderBy('record_key')
      .execute();
    return rows.map((row) => `${row.record_key}=${row.name}`);
  }
  const run = (name: string, batchSize = 2, progress: ImportProgress | null = null) =>
    importObjects(t.services.objectUpserts, { writer: cliWriter(t.communityId), objectTypeId, file: name }, { batchSize, progress });

  beforeAll(async () => {
    t = await createTestApp(engine);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-objects-import-'));
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function freshType() {
    objectTypeId = (await t.services.objectTypeAdmin.create(cliWriter(t.communityId), { name: `Type ${++counter}` })).id;
  }

  it('imports every line in batches, skipping blank lines, with a byte order mark and CRLF endings', async () => {
    await freshType();
    const outcome = await run(file(['\uFEFF' + record('a'), '', record('b'), '   ', record('c'), record('a', 'A again')], '\r\n'));
    expect(outcome).toEqual({ ok: true, totals: { lines: 6, records: 4, created: 3, updated: 1, batches: 2, writtenThroughLine: 6 } });
    expect(await names()).toEqual(['a=A again', 'b=Object b', 'c=Object c']);
  });

  it('stops at a bad line: the batches before it are written, its own batch is not', async () => {
    await freshType();
    const outcome = await run(file([record('a'), record('b'), record('c'), record('d'), record('e'), '{"recordKey": "f", "name": ', record('g')]));
    expect(outcome.ok).toBe(false);
    expect(outcome.totals).toMatchObject({ lines: 6, records: 4, batches: 2, writtenThroughLine: 4 });
    expect(!outcome.ok && outcome.problems).toEqual([expect.stringMatching(/^line 6: not JSON \(/)]);
    expect(await names()).toEqual(['a=Object a', 'b=Object b', 'c=Object c', 'd=Object d']);
  });

  it.each([
    ['[1, 2]', 'line 1: not a JSON object'],
    ['{"recordKey": "k"}', 'line 1: field "name" is required'],
    ['{"recordKey": "k", "name": "n", "colour": "red"}', 'line 1: unknown field "colour"'],
    ['{"recordKey": 5, "name": "n"}', 'line 1: field "recordKey" must be string'],
    ['{"recordKey": "k", "name": "n\\u0000"}', 'line 1: field "name" contains the NUL character (\\u0000)'],
  ])('names what is wrong with a line: %s', async (line, problem) => {
    await freshType();
    const outcome = await run(file([line]));
    expect(outcome).toEqual({ ok: false, totals: expect.objectContaining({ records: 0, batches: 0 }), problems: [problem] });
  });

  it("maps the faults of a batch the service refuses to the records' lines", async () => {
    await freshType();
    const bad = JSON.stringify({ recordKey: 'x', name: 'x', customFields: [{ customFieldId: 'cf_999999', customFieldValue: { value: 1 } }] });
    const outcome = await run(file([record('a'), record('b'), record('c'), bad, record('x', 'twice')]), 3);
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.problems).toEqual([
      `line 4: customFields[0]: no custom field cf_999999 for objects of type ${objectTypeId}`,
      'line 5: recordKey: "x" is also the key of line 4',
    ]);
    expect(outcome.totals).toMatchObject({ records: 3, batches: 1, writtenThroughLine: 3 });
    expect(await names()).toEqual(['a=Object a', 'b=Object b', 'c=Object c']);
  });

  it('reports progress in lines against the line count', async () => {
    await freshType();
    const seen: string[] = [];
    const progress: ImportProgress = {
      start: (total) => seen.push(`start ${total}`),
      update: (done) => seen.push(`${done}`),
      finish: () => seen.push('finish'),
    };
    const name = file([record('a'), '', record('b')]);
    expect((await run(name, 2, progress)).ok).toBe(true);
    expect(seen).toEqual(['start 3', '1', '2', '3', 'finish']);
  });

  it('counts lines with or without a final newline', async () => {
    expect(await countLines(file([]))).toBe(0);
    expect(await countLines(file(['a', 'b']))).toBe(2);
    expect(await countLines(file(['a', 'b', '']))).toBe(2);
  });
});
