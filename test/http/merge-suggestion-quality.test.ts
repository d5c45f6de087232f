import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/factories.ts';
import { identityCases, type CaseKind, type LabelledPush } from '../helpers/identity-cases.ts';
import { ENGINES } from '../helpers/test-database.ts';

/** What the labelled set measures at the threshold (docs/ingestion.md gives the figures this prints). */
const PRECISION_FLOOR = 0.9;
const RECALL_FLOOR = 0.75;

/**
 * The quality of merge suggestions on a labelled set of about 300 people (test/helpers/identity-cases.ts):
 * pushed through the batch route, computed by the step, compared with who is who. Namesakes at different
 * organizations are never suggested; precision and recall stay above their floors.
 */
describe.each(ENGINES)('merge suggestion quality (%s)', (engine) => {
  let t: TestContext;
  const cases = identityCases(42);
  /** The pushes each contact holds. */
  const pushesOf = new Map<string, LabelledPush[]>();
  const suggested: { pair: [string, string]; score: number; reasons: string[] }[] = [];

  beforeAll(async () => {
    t = await createTestContext(engine);
    const response = await t.send(
      'POST',
      `/community/v1/source/${t.sourceId}/users`,
      cases.pushes.map((push) => push.body),
    );
    expect(response.statusCode, response.body).toBe(202);
    const results = response.json().results as { index: number; status: string; contactId: string }[];
    for (const result of results) {
      expect(result.status).toBe('accepted');
      const push = cases.pushes[result.index]!;
      pushesOf.set(result.contactId, [...(pushesOf.get(result.contactId) ?? []), push]);
    }
    await t.services.mergeSuggestions.runStep();
    let cursor: string | null = null;
    do {
      const page = await t.get(`/api/v2/contacts/merge-suggestions?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.statusCode, page.body).toBe(200);
      const body = page.json() as { data: { score: number; reasons: string[]; contacts: { id: string }[] }[]; meta: { nextCursor: string | null } };
      suggested.push(
        ...body.data.map((item) => ({ pair: [item.contacts[0]!.id, item.contacts[1]!.id] as [string, string], score: item.score, reasons: item.reasons })),
      );
      cursor = body.meta.nextCursor;
    } while (cursor);
  }, 120_000);
  afterAll(() => t?.close());

  const personOf = (contactId: string) => pushesOf.get(contactId)?.[0]?.person;
  const kindOf = (contactId: string) => pushesOf.get(contactId)?.[0]?.kind;

  it('suggests most true pairs and few false ones, and never namesakes at different organizations', () => {
    // Every person pushed twice and not merged by a strong identifier is a true pair.
    const contactsOf = new Map<string, string[]>();
    for (const [contactId, pushes] of pushesOf) {
      const person = pushes[0]!.person;
      contactsOf.set(person, [...(contactsOf.get(person) ?? []), contactId]);
    }
    const truePairs = [...contactsOf.values()].filter((ids) => ids.length === 2).length;
    const correct = suggested.filter(({ pair: [a, b] }) => personOf(a) === personOf(b));
    const wrong = suggested.filter(({ pair: [a, b] }) => personOf(a) !== personOf(b));
    const precision = suggested.length ? correct.length / suggested.length : 1;
    const recall = correct.length / truePairs;

    const byKind = new Map<CaseKind, { suggested: number; correct: number }>();
    for (const { pair } of suggested) {
      const kind = kindOf(pair[0])!;
      const counts = byKind.get(kind) ?? { suggested: 0, correct: 0 };
      counts.suggested += 1;
      if (personOf(pair[0]) === personOf(pair[1])) counts.correct += 1;
      byKind.set(kind, counts);
    }
    console.log(
      `merge suggestions on ${cases.people} people (${cases.pushes.length} pushes, ${pushesOf.size} contacts, ${truePairs} true pairs), ${engine}: ` +
        `${suggested.length} suggested, ${correct.length} right, ${wrong.length} wrong; precision ${precision.toFixed(3)}, recall ${recall.toFixed(3)}\n` +
        [...byKind].map(([kind, counts]) => `  ${kind}: ${counts.correct}/${counts.suggested} right`).join('\n') +
        (wrong.length ? `\n  wrong: ${wrong.map(({ reasons }) => reasons.join('; ')).join(' | ')}` : ''),
    );

    const namesakes = suggested.filter(({ pair }) => kindOf(pair[0]) === 'namesakes at different organizations');
    expect(namesakes).toEqual([]);
    for (const kind of ['shared team inbox', 'family members', 'common name, unrelated'] as const) {
      expect(
        suggested.filter(({ pair }) => kindOf(pair[0]) === kind),
        kind,
      ).toEqual([]);
    }
    expect(precision).toBeGreaterThanOrEqual(PRECISION_FLOOR);
    expect(recall).toBeGreaterThanOrEqual(RECALL_FLOOR);
  });
});
