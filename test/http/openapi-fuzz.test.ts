import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliWriter } from '../../src/core/writer.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/**
 * Every operation of the OpenAPI document, called with malformed and extreme input: no answer is a 5xx, and
 * every answer matches the response the document declares for its status. Fixed seed, bounded count, so CI
 * runs the same requests each time; a failure prints the request to reproduce it.
 */

const SEED = 20261124;
const RUNS_PER_OPERATION = 100;

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  schema?: Schema;
}
interface Schema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  $ref?: string;
  minimum?: number;
  maximum?: number;
  additionalProperties?: boolean | Schema;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

const LONE = '\uD800';
const nastyStrings = fc.constantFrom(
  '',
  ' ',
  'null',
  'undefined',
  '0',
  '-1',
  '1e308',
  '9e15',
  '-0',
  'NaN',
  'Infinity',
  '99999999999999999999999',
  '1.5',
  'c_',
  'c_-1',
  'c_99999999999999999999',
  'o_1',
  's_0',
  'l_abc',
  'co_1',
  'cot_1',
  'a_1',
  'cf_1',
  'ls_1',
  'naics_',
  `x${LONE}y`,
  '\u0000',
  '%00',
  '../../etc/passwd',
  '💥'.repeat(50),
  'a'.repeat(10_000),
  '<script>alert(1)</script>',
  "' or 1=1 --",
  'eyJhbGciOiJIUzI1NiJ9.e30.sig',
  '{"type":"and","clauses":[]}',
  '[]',
  '{}',
);
const anyText = fc.oneof(
  nastyStrings,
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
);

/** lightFilter values: valid-looking, wrong, deep and huge. */
const lightFilters = fc.oneof(
  fc.constant('{"type":"and","clauses":[{"type":"stringFilter","field":"fullName","params":{"op":"like","value":"a%_\\\\"}}]}'),
  fc.constant('{"type":"or","clauses":[{"type":"numberFilter","field":"activityCount7d","params":{"op":"gt","value":1e308}}]}'),
  fc.constant('{"type":"and","clauses":[{"type":"dateRangeFilter","field":"latestActivityTime","params":{"op":"in","value":"P99999Y"}}]}'),
  fc.constant(
    `{"type":"and","clauses":[${Array.from({ length: 1000 }, () => '{"type":"booleanFilter","field":"x","params":{"op":"eq","value":true}}').join(',')}]}`,
  ),
  fc.constant(`${'{"type":"and","clauses":['.repeat(500)}${']}'.repeat(500)}`),
  fc.constant(`{"type":"and","clauses":[{"type":"stringFilter","field":"content","params":{"op":"like","value":"${LONE}"}}]}`),
  fc.constant('{"type":"and"'),
  fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
  anyText,
);

const cursors = fc.oneof(fc.constant('abc.def'), fc.base64String({ maxLength: 200 }), anyText);

/** A value for a schema: mostly of the right type, often not. */
function valueFor(schema: Schema | undefined, doc: Document, depth = 0): fc.Arbitrary<unknown> {
  const wrong = fc.oneof(
    fc.constant(null),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    anyText,
    fc.constant([]),
    fc.constant({}),
    fc.constantFrom(1e308, -1e308, 9e15, -0),
  );
  if (!schema || depth > 4) return wrong;
  if (schema.$ref) return valueFor(doc.components.schemas[schema.$ref.split('/').pop()!], doc, depth + 1);
  const right = ((): fc.Arbitrary<unknown> => {
    if (schema.anyOf) return fc.oneof(...schema.anyOf.map((option) => valueFor(option, doc, depth + 1)));
    if (schema.enum) return fc.constantFrom(...schema.enum);
    if (schema.const !== undefined) return fc.constant(schema.const);
    const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
    switch (type) {
      case 'integer':
        return fc.oneof(fc.integer({ min: schema.minimum ?? -10, max: Math.min(schema.maximum ?? 100, 1e6) }), fc.constantFrom(0, -1, 2 ** 31, 2 ** 53, 1e21));
      case 'number':
        return fc.oneof(fc.double({ noNaN: true }), fc.constantFrom(0, 1e308, -1e308));
      case 'boolean':
        return fc.boolean();
      case 'array':
        return fc.array(valueFor(schema.items, doc, depth + 1), { maxLength: 4 });
      case 'object': {
        const properties = schema.properties ?? {};
        const record: Record<string, fc.Arbitrary<unknown>> = {};
        for (const [name, property] of Object.entries(properties)) record[name] = valueFor(property, doc, depth + 1);
        return fc.record(record, { requiredKeys: schema.required?.filter((name) => name in properties) ?? [] });
      }
      default:
        return anyText;
    }
  })();
  return fc.oneof({ weight: 4, arbitrary: right }, { weight: 1, arbitrary: wrong });
}

/** Bodies: generated from the schema, or malformed text, deep nesting, or nothing. */
function bodyFor(operation: Operation, doc: Document): fc.Arbitrary<{ payload?: string; contentType?: string }> {
  const schema = operation.requestBody?.content['application/json']?.schema;
  const json = fc
    .oneof({ weight: 6, arbitrary: valueFor(schema, doc) }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 5 }) })
    .map((value) => JSON.stringify(value) ?? 'null');
  const text = fc.oneof(
    json,
    fc.constant(''),
    fc.constant('{"a":'),
    fc.constant(`${'{"a":'.repeat(6000)}1${'}'.repeat(6000)}`),
    fc.constant(`{"customFields":{"x":${'['.repeat(6000)}${']'.repeat(6000)}}}`),
    fc.constant(`{"name":"${LONE}","id":"\\u0000"}`),
    fc.constant('{"__proto__":{"polluted":true}}'),
    fc.constant(JSON.stringify({ value: 'x'.repeat(200_000) })),
  );
  const contentType = fc.oneof(
    { weight: 8, arbitrary: fc.constant('application/json') },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/json; charset=latin1',
        'application/xml',
        '',
      ),
    },
  );
  return fc.oneof({ weight: schema ? 6 : 1, arbitrary: fc.record({ payload: text, contentType }) }, { weight: 1, arbitrary: fc.constant({}) });
}

function queryFor(operation: Operation, doc: Document): fc.Arbitrary<[string, string][]> {
  const declared = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query');
  const entries = declared.map((parameter) => {
    const value =
      parameter.name === 'lightFilter'
        ? lightFilters
        : parameter.name === 'cursor'
          ? cursors
          : valueFor(parameter.schema, doc).map((item) => (typeof item === 'string' ? item : (JSON.stringify(item) ?? '')));
    return fc.option(
      value.map((text) => [parameter.name, text] as [string, string]),
      { nil: undefined, freq: 2 },
    );
  });
  const extra = fc.oneof(
    { weight: 5, arbitrary: fc.constant<[string, string][]>([]) },
    { weight: 1, arbitrary: fc.constant<[string, string][]>([['unknown', '1']]) },
    {
      weight: 1,
      arbitrary: fc.constant<[string, string][]>(
        declared.length
          ? [
              [declared[0]!.name, '1'],
              [declared[0]!.name, '2'],
            ]
          : [],
      ),
    },
  );
  return fc.tuple(fc.tuple(...entries), extra).map(([chosen, more]) => [...chosen.filter((entry): entry is [string, string] => entry !== undefined), ...more]);
}

describe.each(ENGINES)('every operation of the OpenAPI document, fuzzed (%s)', (engine) => {
  let t: TestApp;
  let doc: Document;
  let realIds: string[];
  const validators = new Map<string, ValidateFunction>();
  const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true });
  addFormats.default(ajv);

  beforeAll(async () => {
    t = await createTestApp(engine);
    doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    ajv.addSchema({ $id: 'openapi', components: doc.components }, 'openapi');
    const send = async (method: 'POST', url: string, payload: unknown) => {
      const response = await t.app.inject({ method, url, headers: { authorization: `Bearer ${t.token}` }, payload: payload as object });
      expect(response.statusCode, `${url}: ${response.body}`).toBeLessThan(300);
      return response.json();
    };
    const user = await send('POST', `/community/v1/source/${t.sourceId}/activity`, {
      id: 'fuzz-1',
      activityType: 'made_post_topic',
      user: { id: 'u-fuzz', email: 'fuzz@acme.example', github: { type: 'handle', value: 'fuzzer' } },
      content: { type: 'text', value: 'Seed activity for the fuzz test' },
    });
    const segment = await send('POST', '/api/v2/segments', { name: 'Fuzzed', entityType: 'contact' });
    const tag = await send('POST', '/community/v1/tags', { name: 'Fuzzed', entityTypes: ['member', 'company'] });
    const type = await send('POST', '/api/v2/admin/object-types', { name: 'Deal' });
    const organizations = await t.get('/api/v2/organizations?limit=1');
    // A token the fuzzer may revoke: never the one it calls with.
    const expendable = await t.services.tokens.issue(cliWriter(t.communityId), { name: 'expendable' });
    realIds = [
      user.contactId,
      user.activityId,
      segment.data.id,
      tag.id,
      type.data.id,
      organizations.json().data[0]?.id ?? 'o_1',
      expendable.jti,
      String(t.sourceId),
      'fuzz@acme.example',
      'cf_1',
      'ls_1',
      'loc_1',
      'tp_1',
    ].filter(Boolean);
  });
  afterAll(() => t.close());

  function validatorFor(key: string, schema: Schema): ValidateFunction {
    let validate = validators.get(key);
    if (!validate) {
      // Local references (#/components/schemas/X) resolve in the document's components.
      const rewritten = JSON.parse(JSON.stringify(schema).replaceAll('"$ref":"#/components', '"$ref":"openapi#/components'));
      validate = ajv.compile(rewritten);
      validators.set(key, validate);
    }
    return validate;
  }

  async function check(path: string, method: string, operation: Operation, request: FuzzRequest) {
    const response = await t.app.inject({ method: request.method as 'GET', url: request.url, headers: request.headers, payload: request.payload });
    const shown = `${request.method} ${request.url.slice(0, 300)} ${JSON.stringify(request.headers).slice(0, 200)} ${String(request.payload ?? '').slice(0, 300)}\n→ ${response.statusCode} ${response.body.slice(0, 400)}`;
    expect(response.statusCode, shown).toBeLessThan(500);
    const status = String(response.statusCode);
    const declared = operation.responses[status] ?? operation.responses[`${status[0]}XX`] ?? operation.responses.default;
    expect(declared, `undeclared status: ${shown}`).toBeDefined();
    const content = declared!.content;
    if (!content || response.body === '') return;
    const type = String(response.headers['content-type'] ?? '');
    if (content['application/json']) {
      expect(type, shown).toMatch(/^application\/json/);
      const validate = validatorFor(`${method} ${path} ${status}`, content['application/json'].schema);
      const valid = validate(response.json());
      expect(valid, `${shown}\n${JSON.stringify(validate.errors).slice(0, 600)}`).toBe(true);
    }
  }

  // 100 requests to each of some 90 operations: minutes on a busy machine, so a limit of its own (not a measure).
  it('answers every operation without a 5xx, in the documented shape of its status', { timeout: 300_000 }, async () => {
    const exercised = new Set<string>();
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ path, method: method.toUpperCase(), operation })),
    );
    expect(operations.length).toBeGreaterThan(60);
    for (const { path, method, operation } of operations) {
      const pathNames = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
      const pathValue = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...realIds) }, { weight: 2, arbitrary: anyText.filter((text) => text.length > 0) });
      const token = fc.oneof(
        { weight: 12, arbitrary: fc.constant(`Bearer ${t.token}`) },
        { weight: 1, arbitrary: fc.constantFrom('', 'Bearer', 'Bearer x.y.z', `Bearer ${t.token}=`, 'Basic abc', `Bearer ${LONE}`) },
      );
      const requests = fc
        .record({
          pathValues: fc.tuple(...pathNames.map(() => pathValue)),
          query: queryFor(operation, doc),
          body: bodyFor(operation, doc),
          authorization: token,
        })
        .map(({ pathValues, query, body, authorization }): FuzzRequest => {
          let url = path;
          pathNames.forEach((name, index) => (url = url.replace(`{${name}}`, encodeURIComponent(pathValues[index]!))));
          const search = new URLSearchParams(query).toString();
          const headers: Record<string, string> = {};
          if (authorization) headers.authorization = authorization;
          if (body.contentType) headers['content-type'] = body.contentType;
          return { method, url: search ? `${url}?${search}` : url, headers, payload: body.payload };
        });
      await fc.assert(
        fc.asyncProperty(requests, async (request) => {
          await check(path, method, operation, request);
        }),
        { seed: SEED, numRuns: RUNS_PER_OPERATION, endOnFailure: true },
      );
      exercised.add(`${method} ${path}`);
    }
    expect(exercised.size).toBe(operations.length);
  });
});
