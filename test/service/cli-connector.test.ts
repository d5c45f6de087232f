import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Invocation, Terminal } from '../../src/cli/command.ts';
import { runCommand } from '../../src/cli/run.ts';
import type { ConnectorKind } from '../../src/modules/connectors/index.ts';
import { discourseConnector } from '../../src/modules/connectors/discourse/discourse-connector.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/** `hearth connector` in this process, through the code `hearth` runs (runCommand). */
describe.each(ENGINES)('hearth connector (%s)', (engine) => {
  let t: TestApp;
  let dir: string;

  beforeAll(async () => {
    t = await createTestApp(engine, { connectorKinds: [discourseConnector as ConnectorKind<unknown, unknown>] });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-connector-'));
  });
  afterAll(async () => {
    await t?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  async function hearth(sub: string, args: string[], values: Invocation['values'] = {}, stdin?: string) {
    let stdout = '';
    let err = '';
    const terminal: Terminal = {
      out: async (text) => void (stdout += text),
      err: (text) => void (err += text),
      errIsTTY: false,
      cwd: dir,
      onInterrupt: () => () => undefined,
    };
    const code = await runCommand(
      { name: 'connector', sub, args, values, ...(stdin === undefined ? {} : { stdin }) },
      { services: t.services, database: t.db.database, terminal },
    );
    return { code, stdout, err };
  }

  it('adds a connector with secrets from standard input, makes and prints its webhook secret once, and never shows the key', async () => {
    const settings = JSON.stringify({ url: 'https://forum.example.com', apiUsername: 'system' });
    const added = await hearth('add', [], { kind: 'discourse', settings, secrets: '-' }, JSON.stringify({ apiKey: 'forum-api-key-secret' }));
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^Added sig_\d+ discourse "Discourse": backfilling/);
    expect(added.stdout).toContain('receiver: http://hearth.test/api/v2/receivers/discourse/rk_');
    const webhookSecret = /Webhook secret \(shown once[^)]*\): ([0-9a-f]{64})/.exec(added.stdout)?.[1];
    expect(webhookSecret).toBeDefined();
    expect(added.stdout).not.toContain('forum-api-key-secret');
    const id = /^Added (sig_\d+)/.exec(added.stdout)![1]!;

    const shown = await hearth('show', [id]);
    expect(shown.stdout).toContain('secrets set: apiKey, webhookSecret');
    expect(shown.stdout).not.toContain(webhookSecret!);
    expect(shown.stdout).not.toContain('forum-api-key-secret');

    fs.writeFileSync(path.join(dir, 'secrets.json'), JSON.stringify({ apiKey: 'rotated-api-key-secret' }));
    const rotated = await hearth('update', [id], { secrets: 'secrets.json', json: true });
    expect(rotated.code).toBe(0);
    expect(JSON.parse(rotated.stdout).secrets).toEqual(['apiKey', 'webhookSecret']);
    expect(rotated.stdout).not.toContain('rotated-api-key-secret');

    expect((await hearth('list', [])).stdout).toMatch(new RegExp(`${id} +discourse +Discourse +backfilling`));
    expect((await hearth('pause', [id])).stdout).toContain(`Paused ${id}`);
    expect((await hearth('resume', [id])).code).toBe(0);
    expect((await hearth('sync', [id])).stdout).toMatch(/^Sync job \d+ was already queued or running/);
    expect((await hearth('remove', [id])).stdout).toContain(`Removed connector ${id}`);
    await expect(hearth('show', ['nope'])).rejects.toThrow('"nope" is not a connector ID (sig_N)');
  });
});
