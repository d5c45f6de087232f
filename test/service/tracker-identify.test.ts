import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { createWebsiteVisitPushService } from '../../src/modules/website-visits/index.ts';
import { accepted } from '../helpers/ingest.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/**
 * An identify call must not tell, by the work it makes the database do, whether a contact holds the address:
 * the statements it runs are the same for a known and an unknown address (their values aside).
 */
describe.each(ENGINES)('tracker identify statements (%s)', (engine) => {
  let t: TestApp;
  let statements: string[];
  let visits: ReturnType<typeof createWebsiteVisitPushService>;

  beforeAll(async () => {
    t = await createTestApp(engine);
    statements = [];
    const db = t.services.db;
    // Records the text of every statement the service sends (parameters apart).
    const recorder: KyselyPlugin = {
      transformQuery({ node, queryId }) {
        statements.push(db.getExecutor().compileQuery(node, queryId).sql);
        return node;
      },
      transformResult: async ({ result }) => result,
    };
    visits = createWebsiteVisitPushService({ db: db.withPlugin(recorder), clock: systemClock });
    await accepted(t, 'user', { id: 'u-known', email: 'known@acme.io', fullName: 'Known' });
  });
  afterAll(() => t?.close());

  async function statementsOf(email: string, trust: 'signed' | 'allowed' | 'held', anonymousId: string) {
    // The browser has a page view of its own, so that a found contact has something to link.
    await visits.recordPageView(t.communityId, t.sourceId, { url: 'https://hearth.dev/', anonymousId });
    statements.length = 0;
    await visits.identify(t.communityId, { anonymousId, email, sourceId: t.sourceId, trust });
    return [...statements];
  }

  it('runs the same statements for an address a contact holds and one nobody holds', async () => {
    for (const trust of ['signed', 'allowed', 'held'] as const) {
      const known = await statementsOf('known@acme.io', trust, `browser-known-${trust}`);
      const unknown = await statementsOf('nobody@acme.io', trust, `browser-unknown-${trust}`);
      expect(known.length, trust).toBeGreaterThan(0);
      expect(unknown, trust).toEqual(known);
    }
    // And the known address was linked where the call was trusted: the same work did the linking.
    const linked = await t.services.db
      .selectFrom('website_visits')
      .select(['anonymous_id', 'contact_id'])
      .where('anonymous_id', 'like', 'browser-known-%')
      .orderBy('anonymous_id')
      .execute();
    expect(linked.map((row) => [row.anonymous_id, row.contact_id !== null])).toEqual([
      ['browser-known-allowed', true],
      ['browser-known-held', false],
      ['browser-known-signed', true],
    ]);
  });
});
