import { describe, expect, it } from 'vitest';
import type { FieldDescription } from '../../../src/filters/field-registry.ts';
import { customFieldOps } from '../../../src/modules/custom-fields/custom-field.filters.ts';
import { describeFields, FILTER_ENTITIES, resolveField } from '../../../src/modules/filter-fields/entity-filters.ts';
import { CLAUSE_OPS } from '../../../src/filters/light-filter.schema.ts';
import { customFieldMap } from './arbitraries.ts';

const byField = (fields: FieldDescription[]) => Object.fromEntries(fields.map(({ field, kinds, ops }) => [field, { kinds, ops }]));

describe('describeFields', () => {
  it('lists the contact fields docs/behaviour.md names (lightFilter) with their kinds and operators', () => {
    const fields = byField(describeFields('contact'));
    const text = { kinds: ['stringListFilter', 'stringFilter'], ops: ['any', 'none', 'eq', 'like', 'startsWith'] };
    const set = { kinds: ['stringListFilter'], ops: ['any', 'all', 'none'] };
    const number = { kinds: ['numberFilter'], ops: ['eq', 'gt', 'gte', 'lt', 'lte'] };
    const time = { kinds: ['dateRangeFilter'], ops: ['in'] };
    expect(fields).toMatchObject({
      fullName: text,
      primaryEmail: text,
      title: text,
      companyName: text,
      tags: set,
      segments: set,
      profiles: set,
      'location.country': text,
      'location.city': text,
      activityCount7d: number,
      activityCount28d: number,
      activityCount8w: number,
      activityCount12w: number,
      activityCount6m: number,
      activityCount1y: number,
      activityCountAll: number,
      latestActivityTime: time,
      firstActivityTime: time,
      providers: set,
      organizationId: { kinds: ['stringListFilter', 'stringFilter'], ops: ['any', 'none', 'eq'] },
    });
  });

  it('lists the activity fields docs/behaviour.md names (lightFilter)', () => {
    const fields = byField(describeFields('activity'));
    expect(Object.keys(fields)).toEqual(
      expect.arrayContaining(['type', 'contactId', 'providerId', 'subSourceNames', 'sentiment', 'activityTime', 'isUserInitiated', 'content']),
    );
    expect(fields.isUserInitiated).toEqual({ kinds: ['booleanFilter'], ops: ['eq'] });
    expect(fields.content).toEqual({ kinds: ['stringFilter'], ops: ['eq', 'like', 'startsWith'] });
    expect(fields.activityTime).toEqual({ kinds: ['dateRangeFilter'], ops: ['in'] });
  });

  it('lists organization, object and website visit fields', () => {
    expect(Object.keys(byField(describeFields('organization')))).toEqual(
      expect.arrayContaining(['name', 'primaryDomain', 'tags', 'contactsCount', 'location.country']),
    );
    expect(Object.keys(byField(describeFields('object')))).toEqual(expect.arrayContaining(['name', 'recordKey', 'objectTypeId', 'segments']));
    expect(Object.keys(byField(describeFields('website_visit')))).toEqual(['url', 'contactId', 'organizationId', 'visitTime']);
  });

  it('adds the custom fields of the entity by value type, and lead scores', () => {
    const dynamic = {
      customFields: customFieldMap([
        [9, { valueType: 'boolean', entityTypes: ['contact'] }],
        [3, { valueType: 'url', entityTypes: ['contact', 'organization'] }],
        [4, { valueType: 'int', entityTypes: ['organization'] }],
        [5, { valueType: 'date', entityTypes: ['contact'] }],
        [6, { valueType: 'geo', entityTypes: ['contact'] }],
      ]),
      leadScores: new Set([7]),
    };
    const contact = describeFields('contact', dynamic).filter(({ field }) => /^(cf|ls)_/.test(field));
    expect(contact).toEqual([
      { field: 'cf_3', kinds: ['stringListFilter', 'stringFilter'], ops: ['any', 'all', 'none', 'eq', 'like', 'startsWith'] },
      { field: 'cf_5', kinds: ['dateRangeFilter'], ops: ['in'] },
      { field: 'cf_9', kinds: ['booleanFilter'], ops: ['eq'] },
      { field: 'ls_7', kinds: ['numberFilter'], ops: ['eq', 'gt', 'gte', 'lt', 'lte'] },
      { field: 'ls_7.percentile', kinds: ['numberFilter'], ops: ['eq', 'gt', 'gte', 'lt', 'lte'] },
    ]);
    expect(
      describeFields('organization', dynamic)
        .filter(({ field }) => field.startsWith('cf_'))
        .map(({ field }) => field),
    ).toEqual(['cf_3', 'cf_4']);
    expect(describeFields('activity', dynamic).some(({ field }) => /^(cf|ls)_/.test(field))).toBe(false);
    expect(describeFields('website_visit', dynamic).some(({ field }) => /^(cf|ls)_/.test(field))).toBe(false);
  });

  it('describes only kinds and operators that exist, and every described field resolves', () => {
    for (const entity of FILTER_ENTITIES) {
      for (const { field, kinds, ops } of describeFields(entity)) {
        const resolved = resolveField(entity, field)!;
        expect(resolved.field).toBe(field);
        for (const kind of kinds) for (const op of resolved.ops[kind] ?? []) expect(CLAUSE_OPS[kind] as readonly string[]).toContain(op);
        expect(new Set(ops)).toEqual(new Set(kinds.flatMap((kind) => resolved.ops[kind] ?? [])));
      }
    }
  });

  it('maps custom field value types to clause kinds', () => {
    expect(Object.keys(customFieldOps('string')!)).toEqual(['stringFilter', 'stringListFilter']);
    expect(Object.keys(customFieldOps('enum')!)).toEqual(['stringFilter', 'stringListFilter']);
    expect(Object.keys(customFieldOps('number')!)).toEqual(['numberFilter']);
    expect(Object.keys(customFieldOps('date')!)).toEqual(['dateRangeFilter']);
    expect(Object.keys(customFieldOps('boolean')!)).toEqual(['booleanFilter']);
    expect(customFieldOps('json')).toBeNull();
  });

  it('resolves no field by a prototype name or a malformed dynamic name', () => {
    const dynamic = { customFields: customFieldMap([[1, { valueType: 'string', entityTypes: ['contact'] }]]), leadScores: new Set([1]) };
    for (const name of ['constructor', '__proto__', 'toString', 'cf_', 'cf_1 ', 'cf_x', 'cf_-1', 'ls_1.score', 'ls_', 'cf_99999999999999999', '']) {
      expect(resolveField('contact', name, dynamic), name).toBeNull();
    }
    expect(resolveField('contact', 'cf_01', dynamic)?.field).toBe('cf_1');
  });
});
