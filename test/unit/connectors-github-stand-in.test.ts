import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitHubStandIn, type Fault, type GitHubStandIn } from '../stand-ins/github-api.ts';

/**
 * The stand-in answers as api.github.com does: every answer the GitHub connector asks for is checked against
 * the response schema GitHub publishes for that operation (@octokit/openapi), so the connector is tested
 * against GitHub's documented shapes, not the stand-in's guesses.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const TOKEN = 'ghp_hearth_test';
const require = createRequire(import.meta.url);
const description = JSON.parse(readFileSync(require.resolve('@octokit/openapi/generated/api.github.com.json'), 'utf8')) as Json;

/**
 * OpenAPI 3.0's `nullable: true` as JSON Schema: null joins the type (and the enum), or, beside no type (on an
 * allOf or anyOf), is one more alternative. Ajv's own `nullable` wants a type beside it.
 */
function withNull(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withNull);
  if (!node || typeof node !== 'object') return node;
  const { nullable, ...rest } = node as Json;
  const schema: Json = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, key === 'example' || key === 'examples' ? value : withNull(value)]));
  if (nullable !== true) return schema;
  if (typeof schema.type === 'string') {
    schema.type = [schema.type, 'null'];
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
    return schema;
  }
  return { anyOf: [{ type: 'null' }, schema] };
}

// `example`, `discriminator` and the like are not checked.
const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
addFormats.default(ajv);
ajv.addSchema(withNull({ components: { schemas: description.components.schemas } }) as Json, 'github');

/** The operation's documented JSON answer for a status, its references resolved against GitHub's components. */
function schemaOf(path: string, method: 'get' | 'post', status: string): ValidateFunction {
  const response = description.paths[path][method].responses[status];
  const content = (response.content ?? description.components.responses[String(response.$ref).split('/').pop()!].content)['application/json'];
  return ajv.compile(withNull(JSON.parse(JSON.stringify(content.schema).replaceAll('"#/components/', '"github#/components/'))) as Json);
}

const basicError = ajv.compile({ $ref: 'github#/components/schemas/basic-error' });

function conforms(validate: ValidateFunction, data: unknown, what: string): void {
  const ok = validate(data);
  expect(ok ? [] : validate.errors!.slice(0, 10).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`), what).toEqual([]);
}

const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
let standIn: GitHubStandIn;

beforeAll(async () => {
  standIn = await startGitHubStandIn({
    repositories: [
      { fullName: 'acme/widgets', stargazers: 120, forks: 3, issues: 9, issueComments: 3, reviewComments: 2, reviewsPerPull: 2, releases: 2, discussions: 1 },
      { fullName: 'acme/gadgets', stargazers: 1 },
    ],
    botEvery: 4,
    app: { appId: 4242, installationId: 99, publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() },
  });
});
afterAll(() => standIn?.stop());

async function get(path: string, accept = 'application/vnd.github+json') {
  const answer = await fetch(`${standIn.url}${path}`, { headers: { authorization: `token ${TOKEN}`, accept } });
  return { status: answer.status, headers: answer.headers, body: (await answer.json()) as unknown };
}

describe("the GitHub stand-in against GitHub's published schemas", () => {
  // Every REST request the connector makes: the documented operation, and a request the stand-in answers.
  const OPERATIONS: [string, string, string?][] = [
    ['/user', '/user'],
    ['/user/{account_id}', '/user/100002'],
    ['/user/{account_id}', '/user/100003'],
    ['/orgs/{org}/repos', '/orgs/acme/repos?type=all&sort=full_name&per_page=100'],
    ['/repos/{owner}/{repo}', '/repos/acme/widgets'],
    ['/repos/{owner}/{repo}/stargazers', '/repos/acme/widgets/stargazers?per_page=100'],
    ['/repos/{owner}/{repo}/stargazers', '/repos/acme/widgets/stargazers?per_page=100&page=2', 'application/vnd.github.star+json'],
    ['/repos/{owner}/{repo}/forks', '/repos/acme/widgets/forks?sort=oldest&per_page=100'],
    ['/repos/{owner}/{repo}/issues', '/repos/acme/widgets/issues?state=all&sort=updated&direction=asc&per_page=100'],
    ['/repos/{owner}/{repo}/issues/{issue_number}', '/repos/acme/widgets/issues/2'],
    ['/repos/{owner}/{repo}/issues/events', '/repos/acme/widgets/issues/events?per_page=100'],
    ['/repos/{owner}/{repo}/issues/comments', '/repos/acme/widgets/issues/comments?sort=updated&direction=asc&per_page=100'],
    ['/repos/{owner}/{repo}/pulls', '/repos/acme/widgets/pulls?state=all&sort=updated&direction=desc&per_page=30'],
    ['/repos/{owner}/{repo}/pulls/{pull_number}/reviews', '/repos/acme/widgets/pulls/6/reviews?per_page=100'],
    ['/repos/{owner}/{repo}/pulls/comments', '/repos/acme/widgets/pulls/comments?sort=updated&direction=asc&per_page=100'],
    ['/repos/{owner}/{repo}/releases', '/repos/acme/widgets/releases?per_page=100'],
  ];

  it.each(OPERATIONS)('GET %s (%s) answers its documented 200 schema, with the rate-limit headers', async (operation, path, accept) => {
    const answer = await get(path, accept);
    expect(answer.status).toBe(200);
    if (Array.isArray(answer.body)) expect(answer.body.length, path).toBeGreaterThan(0);
    conforms(schemaOf(operation, 'get', '200'), answer.body, path);
    for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-ratelimit-used'])
      expect(answer.headers.get(name), name).toMatch(/^\d+$/);
  });

  it('pages with RFC 8288 Link headers to the next and last pages, and none past the last', async () => {
    const first = await get('/repos/acme/widgets/stargazers?per_page=50');
    expect(first.headers.get('link')).toBe(
      `<${standIn.url}/repos/acme/widgets/stargazers?per_page=50&page=2>; rel="next", <${standIn.url}/repos/acme/widgets/stargazers?per_page=50&page=3>; rel="last"`,
    );
    const last = await get('/repos/acme/widgets/stargazers?per_page=50&page=3');
    expect(last.body).toHaveLength(20);
    expect(last.headers.get('link')).not.toMatch(/rel="next"/);
    expect(last.headers.get('link')).toMatch(/rel="first".*rel="prev"/);
  });

  it("answers an installation token as documented, for a JWT signed with the App's key", async () => {
    const now = Math.floor(Date.now() / 1000);
    const jwt = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256' })
      .setIssuer('4242')
      .setIssuedAt(now - 60)
      .setExpirationTime(now + 540)
      .sign(privateKey);
    const answer = await fetch(`${standIn.url}/app/installations/99/access_tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${jwt}`, accept: 'application/vnd.github+json' },
    });
    expect(answer.status).toBe(201);
    conforms(schemaOf('/app/installations/{installation_id}/access_tokens', 'post', '201'), await answer.json(), 'installation token');
  });

  it("answers limits, refusals and failures with GitHub's error body and headers", async () => {
    const faulted = async (fault: Fault) => {
      standIn.fault(fault);
      return get('/repos/acme/gadgets/stargazers');
    };
    const secondary = await faulted({ kind: 'secondary-limit', retryAfter: 30 });
    expect([secondary.status, secondary.headers.get('retry-after')]).toEqual([403, '30']);
    expect((secondary.body as Json).message).toMatch(/secondary rate limit/);
    const tooMany = await faulted({ kind: 'too-many-requests', retryAfter: 60 });
    expect([tooMany.status, tooMany.headers.get('retry-after')]).toEqual([429, '60']);
    const reset = new Date('2030-01-01T00:00:00Z');
    const primary = await faulted({ kind: 'primary-limit', reset });
    expect([primary.status, primary.headers.get('x-ratelimit-remaining'), primary.headers.get('x-ratelimit-reset')]).toEqual([
      403,
      '0',
      String(reset.getTime() / 1000),
    ]);
    const revoked = await faulted({ kind: 'unauthorized' });
    expect(revoked.status).toBe(401);
    expect((revoked.body as Json).message).toBe('Bad credentials');
    const failing = await faulted({ kind: 'server-error', status: 503 });
    expect(failing.status).toBe(503);
    for (const answer of [secondary, tooMany, primary, revoked, failing]) conforms(basicError, answer.body, String(answer.status));
    const missing = await get('/repos/acme/missing');
    expect(missing.status).toBe(404);
    conforms(basicError, missing.body, '404');
    const slow = Date.now();
    expect((await faulted({ kind: 'slow', ms: 200 })).status).toBe(200);
    expect(Date.now() - slow).toBeGreaterThanOrEqual(200);
  });
});
