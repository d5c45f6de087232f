import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Invocation, Terminal } from '../../src/cli/command.ts';
import { runCommand } from '../../src/cli/run.ts';
import { pushUser } from '../helpers/ingest.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/** `hearth contact merge|unmerge|merges` in this process, through the code `hearth` runs (runCommand). */
describe.each(ENGINES)('hearth contact (%s)', (engine) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t?.close());

  async function hearth(sub: string, args: string[], values: Invocation['values'] = {}) {
    let stdout = '';
    const terminal: Terminal = {
      out: async (text) => void (stdout += text),
      err: () => undefined,
      errIsTTY: false,
      cwd: process.cwd(),
      onInterrupt: () => () => undefined,
    };
    const code = await runCommand({ name: 'contact', sub, args, values }, { services: t.services, database: t.db.database, terminal });
    return { code, stdout };
  }

  it('merges two contacts, lists the merge with who made it, and undoes it', async () => {
    const older = await pushUser(t, { id: 'cli-1', email: 'cli.one@example.org', fullName: 'Cli One' });
    const younger = await pushUser(t, { id: 'cli-2', email: 'cli.two@example.org', fullName: 'Cli Two' });

    const merged = await hearth('merge', [younger, older]);
    expect(merged).toEqual({ code: 0, stdout: expect.stringContaining(`Merged ${younger} into ${older} (the older one)`) });
    expect((await t.get(`/api/v2/contacts/${younger}`)).json()).toMatchObject({ data: { id: older } });
    expect((await hearth('merges', [older])).stdout).toMatch(new RegExp(`${younger} +\\S+ +cli:\\S+ +merged by hand by cli:`));

    const undone = await hearth('unmerge', [older, younger], { json: true });
    expect(JSON.parse(undone.stdout)).toEqual({ survivorId: older, restoredId: younger });
    expect((await t.get(`/api/v2/contacts/${younger}`)).json()).toMatchObject({ data: { id: younger, name: 'Cli Two' } });
    const history = JSON.parse((await hearth('merges', [older], { json: true })).stdout) as { unmergedBy: string }[];
    expect(history).toEqual([expect.objectContaining({ mergedId: younger, unmergedBy: expect.stringMatching(/^cli:/) })]);

    await expect(hearth('merge', ['x1', older])).rejects.toThrow('"x1" is not a contact ID (c_N)');
    await expect(hearth('unmerge', [older, younger])).rejects.toThrow(`${younger} is not merged into ${older}`);
  });
});
