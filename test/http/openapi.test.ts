import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

interface Operation {
  security?: unknown[];
  responses: Record<string, unknown>;
  parameters?: { name: string; in: string; description?: string }[];
}

describe('the OpenAPI document', () => {
  let t: TestApp;
  let spec: { openapi: string; paths: Record<string, Record<string, Operation>> };
  beforeAll(async () => {
    t = await createTestApp('pglite');
    spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  });
  afterAll(() => t.close());

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(spec.openapi).toBe('3.1.0');
    const result = await new Validator().validate(spec as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('describes every API route, with bearer security and error responses', () => {
    const routes = t.app.printRoutes({ commonPrefix: false });
    for (const path of ['/api/v2/providers', '/api/v2/me', '/community/v1/activityTypes', '/api/v2/api-token-status']) {
      expect(routes).toContain(path);
      const operation = spec.paths[path]?.get;
      expect(operation, path).toBeDefined();
      expect(operation!.security).toEqual([{ bearerAuth: [] }]);
      expect(Object.keys(operation!.responses)).toEqual(expect.arrayContaining(['200', '403', '429', '4XX', '5XX']));
    }
    expect(spec.paths['/healthz']?.get?.security).toBeUndefined();
  });

  it('documents query parameters', () => {
    const names = spec.paths['/api/v2/providers']!.get!.parameters!.map((parameter) => `${parameter.in}:${parameter.name}`);
    expect(names).toEqual(expect.arrayContaining(['query:limit', 'query:cursor', 'query:direction']));
  });

  it('publishes the filterable fields of every list with a lightFilter (decisions.md §9)', () => {
    const fieldsOf = (path: string) => spec.paths[path]?.get?.parameters?.find((parameter) => parameter.name === 'lightFilter')?.description ?? '';
    expect(fieldsOf('/api/v2/contacts')).toContain('`activityCount7d` (numberFilter)');
    expect(fieldsOf('/api/v2/contacts')).toContain('`ls_<id>`');
    expect(fieldsOf('/api/v2/organizations')).toContain('`primaryDomain`');
    expect(fieldsOf('/api/v2/activities')).toContain('`isUserInitiated` (booleanFilter)');
    expect(fieldsOf('/api/v2/objects')).toContain('`recordKey`');
    expect(fieldsOf('/api/v2/website-visits')).toContain('`visitTime` (dateRangeFilter)');
  });
});
