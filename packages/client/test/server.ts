import type { AddressInfo } from 'node:net';
import { createTestApp, type TestApp, type TestAppOptions } from '../../../test/helpers/test-app.ts';
import type { Engine } from '../../../src/db/database.ts';

export interface TestServer extends TestApp {
  /** Where the app listens: a real HTTP server on an ephemeral port of the loopback interface. */
  baseUrl: string;
}

/** Hearth on a fresh database of the engine, listening for real: the client goes through HTTP, not inject. */
export async function startTestServer(engine: Engine, options: TestAppOptions = {}): Promise<TestServer> {
  const t = await createTestApp(engine, options);
  try {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
  } catch (error) {
    await t.close();
    throw error;
  }
  const { port } = t.app.server.address() as AddressInfo;
  return Object.assign(t, { baseUrl: `http://127.0.0.1:${port}` });
}
