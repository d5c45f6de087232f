import { describe, expect, expectTypeOf, it } from 'vitest';
import * as byName from '@hearth/client';
import { encodeLightFilter, FILTER_FIELDS, lightFilter, lightFilterFor, type FieldFor, type LightFilterGroup, type OpFor } from '../src/index.ts';

/** The builders' output, and what their types refuse (checked by `tsc`: an unused @ts-expect-error fails it). */
describe('lightFilter builders', () => {
  it('build the expression Hearth reads', () => {
    const f = lightFilterFor('/api/v2/contacts');
    const filter = f.and(
      f.string('primaryEmail', 'like', '@acme.com'),
      f.stringList('tags', 'any', ['l_3', 'l_7']),
      f.or(f.dateRange('latestActivityTime', 'P30D'), f.number('ls_2', 'gte', 80), f.dateRange('firstActivityTime', { min: '2026-01-01', max: null })),
    );
    expectTypeOf(filter).toExtend<LightFilterGroup>();
    expect(filter).toEqual({
      type: 'and',
      clauses: [
        { type: 'stringFilter', field: 'primaryEmail', params: { op: 'like', value: '@acme.com' } },
        { type: 'stringListFilter', field: 'tags', params: { op: 'any', value: ['l_3', 'l_7'] } },
        {
          type: 'or',
          clauses: [
            { type: 'dateRangeFilter', field: 'latestActivityTime', params: { op: 'in', value: 'P30D' } },
            { type: 'numberFilter', field: 'ls_2', params: { op: 'gte', value: 80 } },
            { type: 'dateRangeFilter', field: 'firstActivityTime', params: { op: 'in', min: '2026-01-01', max: null } },
          ],
        },
      ],
    });
    expect(JSON.parse(encodeLightFilter(filter))).toEqual(filter);
    const a = lightFilter('activity');
    expect(a.boolean('isUserInitiated', true)).toEqual({ type: 'booleanFilter', field: 'isUserInitiated', params: { op: 'eq', value: true } });
  });

  it('refuse what a list cannot filter by, at compile time and at run time', () => {
    const f = lightFilter('contact');
    const o = lightFilter('organization');
    expectTypeOf<FieldFor<'contact', 'stringFilter'>>().toExtend<string>();
    expectTypeOf<'primaryEmail'>().toExtend<FieldFor<'contact', 'stringFilter'>>();
    expectTypeOf<OpFor<'contact', 'stringListFilter', 'tags'>>().toEqualTypeOf<'any' | 'all' | 'none'>();
    // @ts-expect-error contacts have no field "shoeSize"
    f.number('shoeSize', 'gt', 40);
    // @ts-expect-error a stringListFilter on tags takes any, all or none
    f.stringList('tags', 'like', ['x']);
    // @ts-expect-error primaryEmail is no number
    f.number('primaryEmail', 'gt', 1);
    // @ts-expect-error prospector companies have no custom fields
    lightFilter('prospector_company').string('cf_1', 'eq', 'x');
    // @ts-expect-error a contact's clause does not belong in an organization's group
    o.and(f.string('primaryEmail', 'eq', 'a@b.c'));
    // @ts-expect-error /api/v2/tags takes no lightFilter
    expect(() => lightFilterFor('/api/v2/tags')).toThrow('/api/v2/tags takes no lightFilter');
    // @ts-expect-error no such list
    expect(() => lightFilter('nope')).toThrow('"nope" is not a filterable list');
    expect(() => f.and()).toThrow('an "and" group needs at least one clause');
    // The root `npm install` links the workspace package by its name, and its exports resolve to the source.
    expect(byName.lightFilter).toBe(lightFilter);
    expect(Object.keys(FILTER_FIELDS)).toEqual(expect.arrayContaining(['contact', 'organization', 'activity', 'prospector_company']));
  });
});
