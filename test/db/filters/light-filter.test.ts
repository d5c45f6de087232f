import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { DB } from '../../../src/db/schema.ts';
import { parseDuration, subtractDuration } from '../../../src/filters/date-values.ts';
import type { DynamicFields } from '../../../src/modules/filter-fields/entity-filters.ts';
import { HearthError } from '../../../src/core/errors.ts';
import { ENGINES } from '../../helpers/test-database.ts';
import type { Json } from '../../unit/filters/arbitraries.ts';
import { ALL_CONTACTS, B, NOW, ada, bAda, before, eve, grace, linus, matching, nobody, useSeededDatabase } from './fixture.ts';

/**
 * Every field and operator against the seeded rows of fixture.ts, on both engines: the exact IDs that
 * match, windows at their boundaries, inclusive bounds, nesting, and isolation between communities.
 */

// Expression builders.
const group = (type: 'and' | 'or', clauses: Json[]): Json => ({ type, clauses });
const and = (...clauses: Json[]) => group('and', clauses);
const or = (...clauses: Json[]) => group('or', clauses);
const str = (field: string, op: string, value: string): Json => ({ type: 'stringFilter', field, params: { op, value } });
const list = (field: string, op: string, value: string[]): Json => ({ type: 'stringListFilter', field, params: { op, value } });
const num = (field: string, op: string, value: number): Json => ({ type: 'numberFilter', field, params: { op, value } });
const bool = (field: string, value: boolean): Json => ({ type: 'booleanFilter', field, params: { op: 'eq', value } });
const range = (field: string, params: { value?: string | null; min?: string | null; max?: string | null }): Json => ({
  type: 'dateRangeFilter',
  field,
  params: { op: 'in', ...params },
});

type Case = [string, Json, number[]];

const CONTACT_CASES: Case[] = [
  // Text.
  ['fullName eq', str('fullName', 'eq', 'Ada Lovelace'), [ada]],
  ['fullName eq is exact', str('fullName', 'eq', 'ada lovelace'), []],
  ['fullName like is a case-insensitive substring', str('fullName', 'like', 'LOVE'), [ada]],
  ['fullName startsWith is case-sensitive', str('fullName', 'startsWith', 'Gr'), [grace]],
  ['fullName startsWith, other case', str('fullName', 'startsWith', 'gr'), []],
  ['like takes % literally', str('title', 'like', '%'), [eve]],
  ['like takes _ literally', str('title', 'like', '0%_'), [eve]],
  ['like with an empty string matches every value', str('fullName', 'like', ''), [ada, grace, linus, eve]],
  ['name eq', str('name', 'eq', 'Unknown'), [nobody]],
  ['primaryEmail eq keeps the spelling', str('primaryEmail', 'eq', 'EVE@Example.com'), [eve]],
  ['primaryEmail like', str('primaryEmail', 'like', 'EXAMPLE.com'), [ada, eve]],
  ['title any', list('title', 'any', ['Engineer']), [ada, linus]],
  ['title none counts a missing title as none', list('title', 'none', ['Engineer']), [grace, nobody, eve]],
  ['title any of nothing', list('title', 'any', []), []],
  ['title none of nothing', list('title', 'none', []), ALL_CONTACTS],
  ['companyName like', str('companyName', 'like', 'initech'), [ada, eve]],
  ['companyName any: "NULL" is a string', list('companyName', 'any', ['NULL']), [nobody]],
  ['companyName any with array syntax', list('companyName', 'any', ['{x}', '"q"', 'a,b', 'back\\slash', 'Globex']), [grace]],
  ['location.country eq', str('location.country', 'eq', 'United Kingdom'), [ada, eve]],
  ['location.country any', list('location.country', 'any', ['Finland', 'United States']), [grace, linus]],
  ['location.country none', list('location.country', 'none', ['United Kingdom']), [grace, linus, nobody]],
  ['location.city startsWith', str('location.city', 'startsWith', 'Man'), [eve]],
  // Sets.
  ['tags any', list('tags', 'any', ['l_1']), [ada, grace]],
  ['tags all', list('tags', 'all', ['l_1', 'l_2']), [ada]],
  ['tags all, repeated', list('tags', 'all', ['l_2', 'l_2']), [ada, eve]],
  ['tags all of nothing', list('tags', 'all', []), ALL_CONTACTS],
  ['tags none', list('tags', 'none', ['l_1']), [linus, nobody, eve]],
  ['tags of organizations never match contacts', list('tags', 'any', ['l_3']), []],
  ['tags of community B never match', list('tags', 'any', ['l_101']), []],
  ['tags that do not exist', list('tags', 'any', ['l_999']), []],
  ['segments any', list('segments', 'any', ['s_1']), [ada, linus]],
  ['segments none', list('segments', 'none', ['s_1']), [grace, nobody, eve]],
  ['segments of organizations never match contacts', list('segments', 'any', ['s_2']), []],
  ['segments of object never match contacts', list('segments', 'any', ['s_3']), []],
  ['segments of community B never match', list('segments', 'any', ['s_101']), []],
  ['profiles any', list('profiles', 'any', ['discord']), [eve]],
  ['profiles all', list('profiles', 'all', ['email', 'github']), [ada, linus]],
  ['profiles none', list('profiles', 'none', ['email']), [nobody, eve]],
  ['providers any: a source profile or an activity', list('providers', 'any', ['sig_1']), [ada, linus]],
  ['providers all', list('providers', 'all', ['sig_1', 'sig_2']), [ada]],
  ['providers none', list('providers', 'none', ['sig_1']), [grace, nobody, eve]],
  ['providers of community B', list('providers', 'any', ['sig_101']), []],
  ['organizationId eq', str('organizationId', 'eq', 'o_1'), [ada, eve]],
  ['organizationId any', list('organizationId', 'any', ['o_1', 'o_2']), [ada, grace, eve]],
  ['organizationId none', list('organizationId', 'none', ['o_1']), [grace, linus, nobody]],
  ['organizationId of community B', str('organizationId', 'eq', 'o_101'), []],
  // Activity windows at their boundaries: (now − window, now].
  ['activityCount7d eq 2 (one at now, one a microsecond inside)', num('activityCount7d', 'eq', 2), [ada]],
  ['activityCount7d lt 1', num('activityCount7d', 'lt', 1), [grace, linus, nobody, eve]],
  ['activityCount28d: exactly 7 days back is inside', num('activityCount28d', 'eq', 3), [ada]],
  ['activityCount28d: exactly 28 days back is outside', num('activityCount28d', 'gt', 0), [ada]],
  ['activityCount8w', num('activityCount8w', 'gte', 1), [ada, grace]],
  ['activityCount12w', num('activityCount12w', 'eq', 1), [grace]],
  ['activityCount6m: exactly 182 days back is outside', num('activityCount6m', 'gte', 1), [ada, grace]],
  ['activityCount1y: 365 days less a microsecond is inside', num('activityCount1y', 'eq', 2), [grace]],
  ['activityCount1y gte 1', num('activityCount1y', 'gte', 1), [ada, grace, linus]],
  ['activityCount1y lte 1.5', num('activityCount1y', 'lte', 1.5), [linus, nobody, eve]],
  ['activityCountAll gt 1', num('activityCountAll', 'gt', 1), [ada, grace]],
  ['activityCountAll lte 0', num('activityCountAll', 'lte', 0), [nobody, eve]],
  ['activityCountAll eq 1.5', num('activityCountAll', 'eq', 1.5), []],
  ['activityCountAll gt a huge number', num('activityCountAll', 'gt', 1e300), []],
  ['activityCountAll gt a tiny negative', num('activityCountAll', 'gt', -5e-324), ALL_CONTACTS],
  // Time ranges.
  ['latestActivityTime in P1D: (now − 1 day, now]', range('latestActivityTime', { value: 'P1D' }), [ada, linus]],
  ['latestActivityTime in PT24H', range('latestActivityTime', { value: 'PT24H', min: null, max: null }), [ada, linus]],
  ['latestActivityTime in P0D', range('latestActivityTime', { value: 'P0D' }), []],
  ['latestActivityTime in P999999999Y', range('latestActivityTime', { value: 'P999999999Y' }), [ada, grace, linus]],
  ['firstActivityTime min date: from the start of the day', range('firstActivityTime', { min: '2024-06-01' }), [grace]],
  ['firstActivityTime max date: to the end of the day', range('firstActivityTime', { max: '2024-05-31' }), [ada, linus]],
  ['firstActivityTime min and max dates', range('firstActivityTime', { value: null, min: '2024-05-31', max: '2024-06-01' }), [grace, linus]],
  ['firstActivityTime min instant is inclusive', range('firstActivityTime', { min: '2024-06-01T00:00:00Z' }), [grace]],
  ['firstActivityTime min instant with an offset', range('firstActivityTime', { min: '2024-06-01T02:00:00+02:00' }), [grace]],
  ['firstActivityTime max instant is inclusive', range('firstActivityTime', { max: '2024-06-01T00:00:00Z' }), [ada, grace, linus]],
  ['firstActivityTime max instant to the microsecond', range('firstActivityTime', { max: '2024-05-31T23:59:59.999999Z' }), [ada, linus]],
  ['firstActivityTime max instant a microsecond short', range('firstActivityTime', { max: '2024-05-31T23:59:59.999998Z' }), [ada]],
  ['firstActivityTime min after max', range('firstActivityTime', { min: '2024-06-02', max: '2024-06-01' }), []],
  // Custom fields.
  ['cf string eq', str('cf_1', 'eq', 'Gold'), [ada]],
  ['cf string like', str('cf_1', 'like', 'L'), [ada, grace]],
  ['cf string startsWith', str('cf_1', 'startsWith', 's'), [grace]],
  ['cf string any', list('cf_1', 'any', ['Gold', 'silver']), [ada, grace]],
  ['cf string all', list('cf_1', 'all', ['Gold']), [ada]],
  ['cf string none', list('cf_1', 'none', ['Gold']), [grace, linus, nobody, eve]],
  ['cf multi-select any', list('cf_2', 'any', ['blue']), [ada, grace]],
  ['cf multi-select all', list('cf_2', 'all', ['red', 'blue']), [ada]],
  ['cf multi-select none', list('cf_2', 'none', ['blue']), [linus, nobody, eve]],
  ['cf multi-select eq (one value stored alone)', str('cf_2', 'eq', 'green'), [linus]],
  ['cf int gt (a stored string is no match, not an error)', num('cf_3', 'gt', 15), [grace, linus]],
  ['cf int lte', num('cf_3', 'lte', 10), [ada]],
  ['cf int eq', num('cf_3', 'eq', 20), [grace]],
  ['cf int lt', num('cf_3', 'lt', 100), [ada, grace, linus]],
  ['cf number gt', num('cf_8', 'gt', 2.4), [ada]],
  ['cf number lt 0', num('cf_8', 'lt', 0), [grace]],
  ['cf date min', range('cf_4', { min: '2024-02-01' }), [grace, linus, eve]],
  ['cf date max', range('cf_4', { max: '2024-01-31' }), [ada]],
  ['cf date min and max, inclusive', range('cf_4', { min: '2024-01-31', max: '2024-02-01' }), [ada, grace]],
  ['cf date max as an instant uses its date', range('cf_4', { max: '2024-01-31T23:00:00-05:00' }), [ada]],
  ['cf date in P7D: after the date 7 days back, up to today', range('cf_4', { value: 'P7D' }), [linus]],
  ['cf date in P8D', range('cf_4', { value: 'P8D' }), [linus, eve]],
  ['cf boolean true (a stored string is no match)', bool('cf_5', true), [ada]],
  ['cf boolean false', bool('cf_5', false), [grace]],
  // Lead scores.
  ['ls score gte', num('ls_1', 'gte', 50), [ada, grace]],
  ['ls score lt', num('ls_1', 'lt', 50), [linus]],
  ['ls percentile', num('ls_1.percentile', 'gt', 98), [ada]],
  // Nesting.
  ['and of or', and(or(list('tags', 'any', ['l_1']), list('profiles', 'any', ['discord'])), str('location.country', 'eq', 'United Kingdom')), [ada, eve]],
  ['or of and', or(and(list('title', 'any', ['Engineer']), num('activityCount7d', 'gte', 1)), bool('cf_5', false)), [ada, grace]],
  ['or of nones', or(list('tags', 'none', ['l_1']), list('segments', 'none', ['s_1'])), [grace, linus, nobody, eve]],
  ['and of contradictions', and(str('fullName', 'eq', 'Ada Lovelace'), str('fullName', 'eq', 'Grace Hopper')), []],
  [
    'eight levels deep',
    or(and(or(and(or(and(or(and(str('fullName', 'like', 'a'), num('activityCountAll', 'gte', 1)))))))), str('name', 'eq', 'Nobody at all')),
    [ada, grace, linus],
  ],
];

describe.each(ENGINES)('lightFilter on %s', (engine) => {
  let db: Kysely<DB>;

  useSeededDatabase(engine, (ready) => {
    db = ready;
  });

  const top = (clause: Json) => (typeof clause === 'object' && clause && 'clauses' in clause ? clause : and(clause));

  describe('contacts', () => {
    it.each(CONTACT_CASES)('%s', async (_, filter, expected) => {
      expect(await matching(db, 'contact', top(filter))).toEqual(expected);
    });

    it('never matches another community: the same filters in community B find only its own contact', async () => {
      expect(await matching(db, 'contact', and(str('fullName', 'eq', 'Ada Lovelace')), { community: B })).toEqual([bAda]);
      // A's tag 1 names B's contact in a stray row of community A: not a tag of B's contact.
      expect(await matching(db, 'contact', and(list('tags', 'any', ['l_1'])), { community: B })).toEqual([]);
      expect(await matching(db, 'contact', and(list('tags', 'any', ['l_101'])), { community: B })).toEqual([]);
      expect(await matching(db, 'contact', and(list('providers', 'any', ['sig_101'])), { community: B })).toEqual([bAda]);
      expect(await matching(db, 'contact', and(num('activityCount7d', 'eq', 1)), { community: B })).toEqual([bAda]);
      expect(await matching(db, 'contact', and(num('activityCount7d', 'eq', 2)), { community: B })).toEqual([]);
    });

    it("never reads another community's custom fields or lead scores, nor another entity's, even when the caller passes them", async () => {
      const stray: DynamicFields = {
        customFields: new Map([
          [101, { valueType: 'string', entityTypes: ['contact'] }],
          [6, { valueType: 'string', entityTypes: ['contact', 'organization'] }],
        ]),
        leadScores: new Set([101, 2]),
      };
      expect(await matching(db, 'contact', and(str('cf_101', 'eq', 'Gold')), { dynamic: stray })).toEqual([]);
      // custom field 6 has a value for organization 1 and, stray, for contact 1.
      expect(await matching(db, 'contact', and(str('cf_6', 'eq', 'enterprise')), { dynamic: stray })).toEqual([ada]);
      expect(await matching(db, 'contact', and(num('ls_101', 'gt', -1)), { dynamic: stray })).toEqual([]);
      expect(await matching(db, 'contact', and(num('ls_2', 'gt', -1)), { dynamic: stray })).toEqual([]);
    });
  });

  describe('organizations', () => {
    it.each<Case>([
      ['name eq', str('name', 'eq', 'Initech'), [1]],
      ['primaryDomain startsWith', str('primaryDomain', 'startsWith', 'glo'), [2]],
      ['tags any', list('tags', 'any', ['l_3']), [1]],
      ['contact tags never match organizations', list('tags', 'any', ['l_1', 'l_2']), []],
      ['segments any', list('segments', 'any', ['s_2']), [1]],
      ['contact segments never match organizations', list('segments', 'any', ['s_1']), []],
      ['contactsCount gte', num('contactsCount', 'gte', 2), [1]],
      ['employees lt (no value is no match)', num('employees', 'lt', 100), [1]],
      ['location.country eq', str('location.country', 'eq', 'Germany'), [1]],
      ['location.city none', list('location.city', 'none', ['Berlin']), [2]],
      ['cf eq', str('cf_6', 'eq', 'enterprise'), [1]],
      ['ls gt', num('ls_2', 'gt', 60), [1]],
      ['ls percentile lt', num('ls_2.percentile', 'lt', 80), []],
      ['or', or(str('name', 'eq', 'Globex'), num('contactsCount', 'gt', 1)), [1, 2]],
    ])('%s', async (_, filter, expected) => {
      expect(await matching(db, 'organization', top(filter))).toEqual(expected);
    });
  });

  describe('activities', () => {
    it.each<Case>([
      ['type any', list('type', 'any', ['posted']), [4, 5, 6]],
      ['type none', list('type', 'none', ['commented', 'posted']), [3]],
      ['type eq', str('type', 'eq', 'reacted'), [3]],
      ['contactId any', list('contactId', 'any', ['c_2']), [5, 6]],
      ['contactId eq', str('contactId', 'eq', 'c_3'), [7]],
      ['contactId none', list('contactId', 'none', ['c_1']), [5, 6, 7]],
      ['contactId of community B', list('contactId', 'any', ['c_101']), []],
      ['providerId eq', str('providerId', 'eq', 'sig_2'), [4, 5, 6]],
      ['providerId of community B', list('providerId', 'any', ['sig_101']), []],
      ['subSourceNames any', list('subSourceNames', 'any', ['#general']), [1, 3, 7]],
      ['subSourceNames none (no sub-source is none)', list('subSourceNames', 'none', ['#general']), [2, 4, 5, 6]],
      ['subSourceNames like', str('subSourceNames', 'like', 'REPO'), [4, 5]],
      ['subSourceNames all of two', list('subSourceNames', 'all', ['#general', 'repo-x']), []],
      ['sentiment any', list('sentiment', 'any', ['negative']), [4, 5]],
      ['sentiment none (no sentiment is none)', list('sentiment', 'none', ['neutral']), [1, 3, 4, 5, 6]],
      ['sentiment eq', str('sentiment', 'eq', 'positive'), [1, 6]],
      ['activityTime in P7D', range('activityTime', { value: 'P7D' }), [1, 2]],
      ['activityTime in P28D', range('activityTime', { value: 'P28D' }), [1, 2, 3]],
      ['activityTime in P1Y: 365 days less a microsecond is inside', range('activityTime', { value: 'P1Y' }), [1, 2, 3, 5, 6, 7]],
      ['activityTime between instants, inclusive', range('activityTime', { min: before(28), max: NOW.toISOString() }), [1, 2, 3, 5]],
      ['activityTime min date', range('activityTime', { min: '2024-06-15' }), [1, 4]],
      ['activityTime max date covers the whole day', range('activityTime', { max: '2024-06-15' }), [1, 2, 3, 4, 5, 6, 7]],
      ['activityTime max instant', range('activityTime', { max: '2024-06-15T12:00:00Z' }), [1, 2, 3, 5, 6, 7]],
      ['isUserInitiated false', bool('isUserInitiated', false), [3, 5]],
      ['isUserInitiated true', bool('isUserInitiated', true), [1, 2, 4, 6, 7]],
      ['content like', str('content', 'like', 'KUBERNETES'), [1, 4, 7]],
      ['content eq', str('content', 'eq', 'thanks'), [2]],
      ['content startsWith', str('content', 'startsWith', 'Great'), [1]],
      ['title like', str('title', 'like', 'ingress'), [1]],
      ['url startsWith', str('url', 'startsWith', 'https://forum.'), [1]],
      ['tags any', list('tags', 'any', ['l_4']), [1]],
      ['and', and(str('content', 'like', 'kubernetes'), range('activityTime', { value: 'P7D' })), [1]],
    ])('%s', async (_, filter, expected) => {
      expect(await matching(db, 'activity', top(filter))).toEqual(expected);
    });
  });

  describe('objects and website visits', () => {
    it.each<Case>([
      ['name eq', str('name', 'eq', 'Deal A'), [1]],
      ['recordKey startsWith', str('recordKey', 'startsWith', 'rk'), [1, 2]],
      ['objectTypeId eq', str('objectTypeId', 'eq', 'cot_1'), [1, 2]],
      ['objectTypeId of community B', str('objectTypeId', 'eq', 'cot_101'), []],
      ['segments any', list('segments', 'any', ['s_3']), [1]],
      ['contact segments never match objects', list('segments', 'any', ['s_1']), []],
      ['cf number gt', num('cf_7', 'gt', 1), [2]],
    ])('objects: %s', async (_, filter, expected) => {
      expect(await matching(db, 'object', top(filter))).toEqual(expected);
    });

    it.each<Case>([
      ['url like', str('url', 'like', 'PRICING'), [1]],
      ['contactId any', list('contactId', 'any', ['c_2']), [2]],
      ['organizationId eq', str('organizationId', 'eq', 'o_1'), [1]],
      ['organizationId none (no organization is none)', list('organizationId', 'none', ['o_1']), [2]],
      ['visitTime in P7D', range('visitTime', { value: 'P7D' }), [1]],
    ])('website visits: %s', async (_, filter, expected) => {
      expect(await matching(db, 'website_visit', top(filter))).toEqual(expected);
    });
  });

  it('refuses a bad filter with the 400 before any SQL runs', async () => {
    await expect(
      matching(db, 'contact', '{"type":"and","clauses":[{"type":"numberFilter","field":"activityCount7d","params":{"op":"gtx","value":1}}]}'),
    ).rejects.toMatchObject({
      kind: 'invalid',
      code: 'invalid_filter',
      message: expect.stringContaining('clauses[0].params.op'),
    });
    await expect(matching(db, 'contact', 'not json')).rejects.toBeInstanceOf(HearthError);
  });

  it('subtracts durations exactly as PostgreSQL subtracts intervals', async () => {
    const nows = ['2024-03-31T12:00:00.000Z', '2023-03-31T00:00:00.000Z', '2024-02-29T23:59:59.999Z', '2024-12-31T06:30:00.000Z', '2025-01-31T00:00:00.000Z'];
    const durations = ['P1M', 'P1Y', 'P13M', 'P1M1D', 'P2W', 'P1Y2M3W4DT5H6M7.008S', 'PT36H', 'P6M', 'P0D', 'PT0.5S', 'P11M30D'];
    for (const now of nows) {
      for (const duration of durations) {
        const { rows } = await sql<{
          at: string;
        }>`select to_char(${now.slice(0, -1)}::timestamp - ${duration}::interval, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at`.execute(db);
        expect(subtractDuration(new Date(now), parseDuration(duration)!).toISOString(), `${now} − ${duration}`).toBe(rows[0]!.at);
      }
    }
  });
});
