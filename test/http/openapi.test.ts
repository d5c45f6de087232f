import { lintFromString, loadConfig } from '@redocly/openapi-core';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

interface Operation {
  operationId?: string;
  security?: unknown[];
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
  parameters?: { name: string; in: string; description?: string; required?: boolean; schema?: { default?: unknown } }[];
}

describe('the OpenAPI document', () => {
  let t: TestApp;
  let spec: { openapi: string; paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };
  const operations = () =>
    Object.entries(spec.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method, operation })));
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

  it('describes every API route, with bearer (or console session) security and error responses', () => {
    for (const path of ['/api/v2/providers', '/api/v2/me', '/community/v1/activityTypes', '/api/v2/api-token-status']) {
      expect(t.app.hasRoute({ method: 'GET', url: path }), path).toBe(true);
      const operation = spec.paths[path]?.get;
      expect(operation, path).toBeDefined();
      expect(operation!.security).toEqual([{ bearerAuth: [] }, { sessionCookie: [] }]);
      expect(Object.keys(operation!.responses)).toEqual(expect.arrayContaining(['200', '403', '429', '4XX', '5XX']));
    }
  });

  it('says that the probes and the documentation need no token (security: [])', () => {
    for (const path of ['/healthz', '/readyz', '/openapi.json', '/docs']) {
      expect(spec.paths[path]?.get?.security, path).toEqual([]);
    }
  });

  it('names every operation with a unique camelCase operationId', () => {
    const ids = operations().map(({ path, method, operation }) => {
      expect(operation.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z0-9]*$/);
      return operation.operationId;
    });
    expect(new Set(ids).size).toBe(ids.length);
    expect(spec.paths['/api/v2/contacts']!.get!.operationId).toBe('listContacts');
    expect(spec.paths['/api/v2/contacts/{id}']!.get!.operationId).toBe('getContact');
    expect(spec.paths['/community/v1/segments/{id}']!.get!.operationId).toBe('getCoreSegment');
    expect(spec.paths['/api/v2/prospector-companies']!.get!.operationId).toBe('listProspectorCompanies');
    expect(spec.paths['/api/v2/admin/prospector/contacts']!.post!.operationId).toBe('importProspectorContacts');
  });

  it('never marks a parameter with a default as required', () => {
    for (const { path, method, operation } of operations()) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.schema?.default !== undefined) expect(parameter.required, `${method} ${path} ${parameter.name}`).not.toBe(true);
      }
    }
    const limit = spec.paths['/api/v2/contacts']!.get!.parameters!.find((parameter) => parameter.name === 'limit')!;
    expect(limit).toMatchObject({ required: false, schema: { default: 50 } });
  });

  it('names the records and the error bodies under components.schemas, and the operations refer to them', () => {
    expect(Object.keys(spec.components.schemas)).toEqual(
      expect.arrayContaining([
        'Contact',
        'Organization',
        'Activity',
        'Segment',
        'Tag',
        'CustomField',
        'LeadScore',
        'CustomObject',
        'V2Error',
        'CoreError',
        'Forbidden',
        'RateLimited',
      ]),
    );
    const json = (operation: Operation, status: string) => JSON.stringify(operation.responses[status]?.content?.['application/json']?.schema);
    expect(json(spec.paths['/api/v2/contacts']!.get!, '200')).toContain('"$ref":"#/components/schemas/Contact"');
    expect(json(spec.paths['/api/v2/organizations/{id}']!.get!, '200')).toContain('"$ref":"#/components/schemas/Organization"');
    expect(json(spec.paths['/api/v2/tags']!.get!, '200')).toContain('"$ref":"#/components/schemas/Tag"');
    expect(json(spec.paths['/api/v2/contacts']!.get!, '4XX')).toBe('{"$ref":"#/components/schemas/V2Error"}');
    expect(json(spec.paths['/community/v1/members']!.get!, '4XX')).toBe('{"$ref":"#/components/schemas/CoreError"}');
    expect(json(spec.paths['/api/v2/contacts']!.get!, '403')).toBe('{"$ref":"#/components/schemas/Forbidden"}');
  });

  it("passes Redocly's recommended lint rules (redocly.yaml) without an error or a warning", async () => {
    const config = await loadConfig({ configPath: new URL('../../redocly.yaml', import.meta.url).pathname });
    const problems = await lintFromString({ source: JSON.stringify(spec), absoluteRef: 'openapi.json', config });
    expect(problems.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`)).toEqual([]);
  });

  it('documents query parameters', () => {
    const names = spec.paths['/api/v2/providers']!.get!.parameters!.map((parameter) => `${parameter.in}:${parameter.name}`);
    expect(names).toEqual(expect.arrayContaining(['query:limit', 'query:cursor', 'query:direction']));
  });

  it('publishes the filterable fields of every list with a lightFilter (docs/behaviour.md, lightFilter)', () => {
    const fieldsOf = (path: string) => spec.paths[path]?.get?.parameters?.find((parameter) => parameter.name === 'lightFilter')?.description ?? '';
    expect(fieldsOf('/api/v2/contacts')).toContain('`activityCount7d` (numberFilter)');
    expect(fieldsOf('/api/v2/contacts')).toContain('`ls_<id>`');
    expect(fieldsOf('/api/v2/organizations')).toContain('`primaryDomain`');
    expect(fieldsOf('/api/v2/activities')).toContain('`isUserInitiated` (booleanFilter)');
    expect(fieldsOf('/api/v2/objects')).toContain('`recordKey`');
    expect(fieldsOf('/api/v2/website-visits')).toContain('`visitTime` (dateRangeFilter)');
    expect(fieldsOf('/api/v2/prospector-contacts')).toContain('`lastOrgChange` (dateRangeFilter)');
    expect(fieldsOf('/api/v2/prospector-companies')).toContain('`employees` (numberFilter)');
  });
});
