import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/db/database.ts';
import { call, freshDatabaseEnv, Processes, type Env, type HearthServer } from '../helpers/process.ts';

/**
 * `hearth prospector import FILE`, run as a real process on one engine: JSON Lines and CSV files of
 * companies and contacts, checked through the HTTP API; a file with bad lines refused whole; and an import
 * killed with SIGKILL part way, then run again, which continues from its last committed chunk.
 * prospector-import-embedded.test.ts and prospector-import-postgres.test.ts run it.
 */

type Listed = { data: Record<string, unknown>[]; meta: { nextCursor: string | null; recordCount?: number } };

export function describeProspectorImport(engine: Engine) {
  describe.skipIf(engine === 'postgres' && !process.env.TEST_DATABASE_URL)(`hearth prospector import (${engine})`, () => {
    const processes = new Processes();
    let env: Env;
    let token: string;
    let dir: string;
    let dropDatabase: (() => Promise<void>) | undefined;
    // Generous: on a busy machine the first command, which creates the embedded database, takes a while.
    const hearth = (...args: string[]) => processes.run(args, env, 120_000);

    beforeAll(async () => {
      ({ env, drop: dropDatabase } = await freshDatabaseEnv(engine, processes));
      const init = await hearth('init', '--json');
      expect(init.code, init.stderr).toBe(0);
      token = (JSON.parse(init.stdout) as { token: string }).token;
      dir = processes.tempDir();
    }, 180_000);
    afterAll(async () => {
      await processes.cleanup();
      await dropDatabase?.();
    });

    const write = (name: string, text: string) => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, text);
      return file;
    };
    const jsonl = (records: unknown[]) => records.map((record) => JSON.stringify(record)).join('\n') + '\n';

    /** The embedded database takes one process at a time: the server starts after the imports and stops before the next. */
    async function withServer<T>(check: (server: HearthServer) => Promise<T>): Promise<T> {
      const server = await processes.serve(env);
      try {
        return await check(server);
      } finally {
        server.process.kill('SIGTERM');
        await server.process.waitForExit();
      }
    }

    async function list(server: HearthServer, what: 'prospector-companies' | 'prospector-contacts', query: Record<string, string>): Promise<Listed> {
      const response = await call(`${server.url}/api/v2/${what}?${new URLSearchParams(query).toString()}`, { token });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body as Listed;
    }

    const nameStarts = (prefix: string) =>
      JSON.stringify({ type: 'and', clauses: [{ type: 'stringFilter', field: 'name', params: { op: 'startsWith', value: prefix } }] });

    it('imports companies and contacts from JSON Lines and CSV, as the import API stores them', { timeout: 240_000 }, async () => {
      const companies = write(
        'companies.jsonl',
        jsonl([
          {
            domain: 'https://www.initech.com/',
            name: 'Initech',
            employees: 420,
            technologies: ['postgresql', 'Kubernetes'],
            location: { city: 'Austin', countryCode: 'us' },
          },
          { primaryWebsite: 'https://globex.com', name: 'Globex', industry: 'naics_513210' },
        ]),
      );
      const companiesCsv = write(
        'companies.csv',
        'domain,name,employees,raised,technologies,location.city,location.countryCode,revenueRange.min,revenueRange.max\r\n' +
          'umbrella.com,"Umbrella, Inc.",1200,2500000.5,Stripe; PostgreSQL,Raccoon City,us,1000,5000\r\n' +
          '\r\n' +
          'hooli.com,Hooli,,,,,,,\r\n',
      );
      const contacts = write(
        'contacts.jsonl',
        jsonl([
          {
            linkedInHandle: 'https://www.linkedin.com/in/Jane-Doe/',
            fullName: 'Jane Doe',
            title: 'VP Engineering',
            skills: ['Go', 'Kubernetes'],
            companyDomain: 'initech.com',
          },
          { linkedInHandle: 'peter-gibbons', fullName: 'Peter Gibbons', companyDomain: 'www.initech.com' },
        ]),
      );
      const contactsCsv = write(
        'contacts.csv',
        'linkedInHandle,fullName,title,skills,linkedInFollowerCount,location.city,companyDomain,lastOrgChange\n' +
          'alice-wesker,Alice Wesker,"Head of\nResearch",Biology;Chemistry,77,Raccoon City,umbrella.com,2024-11-04\n',
      );

      const imported = [];
      for (const file of [companies, companiesCsv, contacts, contactsCsv]) {
        const result = await hearth('prospector', 'import', file, '--json');
        expect(result.code, result.stderr).toBe(0);
        imported.push(JSON.parse(result.stdout) as Record<string, unknown>);
        if (file === companiesCsv) expect(result.stderr).toBe('checking: 4/4 lines (100%)\nimporting: 4/4 lines (100%)\n');
      }
      expect(imported).toEqual([
        { kind: 'companies', file: companies, format: 'jsonl', records: 2, added: 2, changed: 0, unchanged: 0, chunks: 1, resumedAfterLine: null },
        { kind: 'companies', file: companiesCsv, format: 'csv', records: 2, added: 2, changed: 0, unchanged: 0, chunks: 1, resumedAfterLine: null },
        { kind: 'contacts', file: contacts, format: 'jsonl', records: 2, added: 2, changed: 0, unchanged: 0, chunks: 1, resumedAfterLine: null },
        { kind: 'contacts', file: contactsCsv, format: 'csv', records: 1, added: 1, changed: 0, unchanged: 0, chunks: 1, resumedAfterLine: null },
      ]);
      // Not a TTY: plain progress lines; the summary on stdout.
      expect(imported.length).toBe(4);
      await withServer(async (server) => {
        const cols = 'employees,raised,technologies,location,revenueRange,primaryWebsite';
        const found = await list(server, 'prospector-companies', { cols, sort: 'name', limit: '10' });
        expect(found.data.map((company) => company.name)).toEqual(['Globex', 'Hooli', 'Initech', 'Umbrella, Inc.']);
        expect(found.data[3]).toMatchObject({
          employees: 1200,
          raised: 2500000.5,
          technologies: ['Stripe', 'PostgreSQL'],
          location: { city: 'Raccoon City', countryCode: 'US' },
          revenueRange: { min: 1000, max: 5000 },
          primaryWebsite: 'https://umbrella.com',
        });
        // Empty cells are fields left out: an object all of whose cells are empty too.
        expect(found.data[1]).toMatchObject({ employees: null, technologies: [], location: null, revenueRange: null });
        expect(found.data[2]).toMatchObject({ employees: 420, technologies: ['PostgreSQL', 'Kubernetes'] });
        const people = await list(server, 'prospector-contacts', {
          cols: 'linkedInHandle,title,skills,companyName,linkedInFollowerCount,location',
          sort: 'name',
          limit: '10',
        });
        expect(people.data).toEqual([
          expect.objectContaining({
            name: 'Alice Wesker',
            linkedInHandle: 'alice-wesker',
            title: 'Head of\nResearch',
            skills: ['Biology', 'Chemistry'],
            companyName: 'Umbrella, Inc.',
            linkedInFollowerCount: 77,
          }),
          expect.objectContaining({ name: 'Jane Doe', linkedInHandle: 'jane-doe', skills: ['Go', 'Kubernetes'], companyName: 'Initech' }),
          expect.objectContaining({ name: 'Peter Gibbons', companyName: 'Initech' }),
        ]);
      });
    });

    it('refuses a file with bad lines, naming each by its line, and writes nothing', { timeout: 180_000 }, async () => {
      const bad = write(
        'bad.jsonl',
        [
          JSON.stringify({ domain: 'bad-one.com', name: 'Bad One' }),
          '',
          '{"domain": "bad-two.com", "name": ',
          JSON.stringify({ domain: 'bad-three.com', name: 'Bad Three', employees: '5' }),
          JSON.stringify({ domain: 'www.bad-one.com', name: 'Bad One again', technologies: ['NoSuchProduct'] }),
        ].join('\n'),
      );
      const refused = await hearth('prospector', 'import', bad, '--kind', 'companies');
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toMatch(/^checking: 5\/5 lines \(100%\)\nhearth: prospector import refused: 4 faults in /);
      expect(refused.stderr).toContain('  line 3: not JSON (');
      expect(refused.stderr).toContain(
        '  line 4: field "employees" must be integer\n' +
          '  line 5: domain "bad-one.com" is also that of line 1\n' +
          '  line 5: technologies[0] "NoSuchProduct" is not in the technographic catalog (GET /api/v2/tech-stack-products; admins add products with POST /api/v2/admin/tech-products)\n' +
          'Nothing was written.\n',
      );

      const badCsv = write('bad.csv', 'linkedInHandle,fullName,companyDomain\nok-person,Ok Person,\nno-company,No Company,nowhere-at-all.com\nshort-row\n');
      const csvRefused = await hearth('prospector', 'import', badCsv);
      expect(csvRefused.code).toBe(1);
      expect(csvRefused.stderr).toContain(
        '  line 3: companyDomain "nowhere-at-all.com" is not the domain of a prospector company (import the company first)\n' +
          '  line 4: 1 cells where the header has 3 columns\nNothing was written.\n',
      );
      // Nothing of the companies' file is there: its good record is new to a second import. (The next test
      // checks that the contacts are still the first test's three.)
      const good = await hearth('prospector', 'import', write('good.jsonl', jsonl([{ domain: 'bad-one.com', name: 'Bad One' }])), '--json');
      expect(JSON.parse(good.stdout)).toMatchObject({ records: 1, added: 1 });
    });

    it('an import killed part way continues from its last committed chunk when run again', { timeout: 240_000 }, async () => {
      const count = 12_000;
      const lines: string[] = [];
      for (let index = 1; index <= count; index++)
        lines.push(JSON.stringify({ domain: `kill-${index}.com`, name: `Kill ${index}`, employees: index, technologies: index % 2 ? ['PostgreSQL'] : [] }));
      const file = write('big.jsonl', `${lines.join('\n')}\n`);

      const first = processes.spawn(['prospector', 'import', file], env);
      const committed = await first.waitFor(() => {
        const done = first
          .lines('stderr')
          .map((line) => /^importing: (\d+)\//.exec(line)?.[1])
          .filter(Boolean);
        return done.length >= 2 ? Number(done[done.length - 1]) : undefined;
      }, 'two chunks committed');
      first.kill('SIGKILL');
      expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
      expect(committed).toBeLessThan(count);

      const second = await hearth('prospector', 'import', file, '--json');
      expect(second.code, second.stderr).toBe(0);
      const resumedAfter = Number(/^Resuming the import of .* after line (\d+): (\d+) companies were imported before/m.exec(second.stderr)?.[1]);
      expect(resumedAfter).toBeGreaterThanOrEqual(committed);
      expect(resumedAfter % 1000).toBe(0);
      // Its progress starts past what was committed, not at 0.
      expect(second.stderr).toMatch(new RegExp(`^importing: ${resumedAfter + 1000}/${count} lines`, 'm'));
      expect(second.stderr).not.toMatch(/^importing: 1000\//m);
      expect(JSON.parse(second.stdout)).toEqual({
        kind: 'companies',
        file,
        format: 'jsonl',
        records: count,
        added: count,
        changed: 0,
        unchanged: 0,
        chunks: count / 1000,
        resumedAfterLine: resumedAfter,
      });

      // Done: a third run is a new import of the same file, which finds every record there already.
      const third = await hearth('prospector', 'import', file, '--json');
      expect(JSON.parse(third.stdout)).toMatchObject({ records: count, added: 0, unchanged: count, resumedAfterLine: null });

      await withServer(async (server) => {
        const page = await list(server, 'prospector-companies', { lightFilter: nameStarts('Kill '), cols: 'recordCount', limit: '1' });
        expect(page.meta.recordCount).toBe(count);
        // The refused contacts file of the test before wrote nothing.
        expect((await list(server, 'prospector-contacts', { cols: 'recordCount', limit: '1' })).meta.recordCount).toBe(3);
      });
    });

    it('Ctrl-C stops after the chunk being written; --restart starts over', { timeout: 180_000 }, async () => {
      // Enough chunks that the signal, sent when the first is reported, lands before the last on a busy machine.
      const count = 20_000;
      const file = write('restart.jsonl', jsonl(Array.from({ length: count }, (_, index) => ({ domain: `again-${index}.com`, name: `Again ${index}` }))));
      const first = processes.spawn(['prospector', 'import', file], env);
      await first.waitForLine(/^importing: 1000\//, { stream: 'stderr' });
      first.kill('SIGINT');
      expect(await first.exited).toEqual({ code: 130, signal: null });
      const stopped = Number(
        /^hearth: prospector import interrupted: (\d+) companies imported through line \1; run the same command again to continue from there\.$/m.exec(
          first.stderr,
        )?.[1],
      );
      expect(stopped % 1000).toBe(0);
      expect(stopped).toBeLessThan(count);

      const restarted = await hearth('prospector', 'import', file, '--restart', '--json');
      expect(restarted.stderr).not.toContain('Resuming');
      const totals = JSON.parse(restarted.stdout) as { records: number; added: number; unchanged: number; resumedAfterLine: number | null };
      // From the top: what the stopped run committed is there unchanged, the rest is added.
      expect(totals).toEqual(expect.objectContaining({ records: count, added: count - stopped, unchanged: stopped, resumedAfterLine: null }));
    });
  });
}
