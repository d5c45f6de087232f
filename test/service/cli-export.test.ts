import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Invocation, Terminal } from '../../src/cli/command.ts';
import { runCommand } from '../../src/cli/run.ts';
import { cliWriter } from '../../src/core/writer.ts';
import { ACTIVITY_LIST_COLS } from '../../src/modules/activities/index.ts';
import { CONTACT_LIST_COLS } from '../../src/modules/contacts/index.ts';
import { ORGANIZATION_LIST_COLS } from '../../src/modules/organizations/index.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { walkPages, withQuery } from '../helpers/paging.ts';

/**
 * `hearth export` in this process, through the code `hearth` runs (runCommand), on both engines: every
 * record, in the representation GET /api/v2/<list> gives with every column, page after page.
 */
describe.each(ENGINES)('hearth export (%s)', (engine) => {
  let t: TestApp;
  let dir: string;
  const USERS = 1203;

  beforeAll(async () => {
    t = await createTestApp(engine);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-export-'));
    await t.services.customFieldAdmin.create(cliWriter(t.communityId), { name: 'Plan', entityTypes: ['contact'], valueType: 'string' });
    for (let start = 0; start < USERS; start += 1000) {
      const users = Array.from({ length: Math.min(1000, USERS - start) }, (_, index) => {
        const n = start + index;
        // Commas and quotes, and text a spreadsheet would run as a formula, for the CSV.
        // And text that a spreadsheet splitting rows on semicolons or tabs would cut into a formula.
        const fullName =
          { 7: 'Quote "Q", Esq. Jr', 8: '=HYPERLINK("https://evil.example","Click")', 9: '@SUM(1,2)', 11: 'x;=1+1', 12: 'Semi; "=HYPERLINK(1)";-5' }[n] ??
          `User ${n}`;
        return { id: `u-${n}`, fullName, email: `user${n}@example.org`, ...(n === 9 ? { titleAtCompany: '-5' } : {}) };
      });
      const response = await t.send('POST', `/community/v1/source/${t.sourceId}/users`, users);
      expect(response.statusCode, response.body).toBe(202);
    }
    const activities = Array.from({ length: 30 }, (_, n) => ({
      id: `a-${n}`,
      activityType: 'made_post_topic',
      user: { id: `u-${n}` },
      ...(n === 3 ? { content: 'Tabbed\t@SUM(1,2)\tthen\n=cmd' } : {}),
    }));
    expect((await t.send('POST', `/community/v1/source/${t.sourceId}/activities`, activities)).statusCode).toBe(202);
    for (const domain of ['acme.com', 'globex.com'])
      expect((await t.send('POST', `/community/v1/source/${t.sourceId}/organization`, { domain })).statusCode).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Runs `hearth export ...` here: stdout and stderr captured; stdout read in the chunks written. */
  async function exportOf(sub: string, values: Invocation['values'] = {}) {
    const out: string[] = [];
    let err = '';
    const terminal: Terminal = {
      out: async (text) => void out.push(text),
      err: (text) => void (err += text),
      errIsTTY: false,
      cwd: dir,
      onInterrupt: () => () => undefined,
    };
    const code = await runCommand({ name: 'export', sub, args: [], values }, { services: t.services, database: t.db.database, terminal });
    return { code, out, stdout: out.join(''), err };
  }

  /** Every record of a list as the API gives it with every column. */
  async function listed(url: string, cols: string, sort?: string) {
    return walkPages<Record<string, unknown>>((cursor) => t.get(withQuery(url, { limit: 1000, cols, cursor, sort })), 1000);
  }

  it('contacts as JSON Lines: what the API lists with every column, in ID order, written page by page, progress on stderr', async () => {
    const result = await exportOf('contacts');
    expect(result.code).toBe(0);
    const records = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records).toHaveLength(USERS);
    // Written as read: one write per page of 1,000, never the whole list at once.
    expect(result.out).toHaveLength(2);
    const first = records.find((record) => record.primaryEmail === 'user0@example.org')!;
    expect(first).toMatchObject({
      fullName: 'User 0',
      customFields: {},
      recentActivities: expect.any(Array),
      url: expect.stringMatching(/\/contacts\/c_\d+$/),
    });
    expect(records).toEqual(await listed('/api/v2/contacts', `${CONTACT_LIST_COLS.optIn.join(',')},cf_*`));
    expect(result.err).toBe(`exporting contacts: 1000/${USERS} contacts (83%)\nexporting contacts: ${USERS}/${USERS} contacts (100%)\n`);
  });

  it('organizations and activities, JSON Lines and CSV to a file; the CSV has a header row and quotes what needs it', async () => {
    const organizations = await exportOf('organizations');
    const orgs = organizations.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { primaryDomain: string });
    expect(orgs.map((org) => org.primaryDomain).sort()).toEqual(expect.arrayContaining(['acme.com', 'globex.com']));
    expect(orgs).toEqual(await listed('/api/v2/organizations', `${ORGANIZATION_LIST_COLS.optIn.join(',')},cf_*`));

    const activities = await exportOf('activities', { format: 'jsonl' });
    const exported = activities.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(exported).toHaveLength(30);
    expect(exported).toEqual(await listed('/api/v2/activities', ACTIVITY_LIST_COLS.optIn.join(','), 'id'));

    const file = path.join(dir, 'contacts.csv');
    const csv = await exportOf('contacts', { format: 'csv', out: 'contacts.csv', json: true });
    expect(csv.code).toBe(0);
    expect(JSON.parse(csv.stdout)).toEqual({ exported: USERS, what: 'contacts', format: 'csv', file, communityId: `com_${t.communityId}` });
    const text = fs.readFileSync(file, 'utf8');
    const [header] = text.split('\r\n');
    expect(header).toMatch(/^id,name,fullName,/);
    expect(text).toMatch(/^c_\d+,"Quote ""Q"", Esq\.[^"]*","Quote ""Q"", Esq\.[^"]*",/m);
    // A formula stays text (an apostrophe before it); a number, or nothing that could be one, is as it was.
    const row = (email: string) => text.split('\r\n').find((line) => line.includes(email))!;
    expect(row('user8@example.org')).toContain(`"'=HYPERLINK(""https://evil.example"",""Click"")"`);
    expect(row('user8@example.org')).not.toMatch(/(^|,)"?=/);
    expect(row('user9@example.org')).toContain(`"'@SUM(1,2)"`);
    expect(row('user9@example.org')).toMatch(/,-5,/);
    expect(row('user10@example.org')).toMatch(/,User 10,/);
    // Semicolons and tabs are quoted as commas are: where quotes are read, the field stays one cell...
    const records = parse(text, { columns: true }) as Record<string, string>[];
    const byEmail = (email: string) => records.find((record) => record.primaryEmail === email)!;
    expect(row('user11@example.org')).toContain(`,"x;'=1+1",`);
    expect(byEmail('user11@example.org').fullName).toBe("x;'=1+1");
    expect(byEmail('user12@example.org').fullName).toBe(`Semi;' "=HYPERLINK(1)";'-5`);
    // ...and where a spreadsheet cuts rows at semicolons, tabs and line breaks without reading quotes,
    // no piece runs as a formula.
    expect(formulasWhenCut(text)).toEqual([]);
    expect(text.split('\r\n').filter(Boolean)).toHaveLength(USERS + 1);
    expect(fs.readdirSync(dir).filter((name) => name.includes('.partial'))).toEqual([]);
    // People's contact details: readable by the user who exported them only, as a backup is.
    if (process.platform !== 'win32') expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');

    const activitiesCsv = (await exportOf('activities', { format: 'csv' })).stdout;
    const tabbed = (parse(activitiesCsv, { columns: true }) as Record<string, string>[]).find((record) => record.content?.startsWith('Tabbed'));
    expect(tabbed?.content).toBe("Tabbed\t'@SUM(1,2)\tthen\n'=cmd");
    expect(formulasWhenCut(activitiesCsv)).toEqual([]);
  });

  it('a wrong list or format is a usage error', async () => {
    await expect(exportOf('segments')).rejects.toThrow('export takes contacts, organizations or activities, not "segments"');
    await expect(exportOf('contacts', { format: 'xml' })).rejects.toThrow('--format must be jsonl or csv, not "xml"');
    await expect(exportOf('')).rejects.toThrow();
  });
});

/**
 * The cells a spreadsheet makes of CSV text when it cuts at semicolons (a locale whose list separator is
 * the semicolon), tabs and line breaks without reading the quotes around a field in mid-row: those that
 * would run as a formula (quotes and spaces before a formula character are skipped, as a cut cell may
 * start with them).
 */
function formulasWhenCut(text: string): string[] {
  return text
    .split(/[;\t\r\n]/)
    .map((cell) => cell.replace(/^[ "]*/, ''))
    .filter((cell) => /^[=+\-@]/.test(cell) && !/^[+-]?\d[\d\s().,-]*$/.test(cell));
}
