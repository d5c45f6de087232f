import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { ManualClock } from '../../src/clock.ts';
import { cliWriter } from '../../src/core/writer.ts';
import type { HearthApp } from '../../src/http/types.ts';
import { resetScryptPeak, SCRYPT_CONCURRENCY, SCRYPT_MAX_WAITING, scryptActivity, verifyCandidates } from '../../src/modules/app-users/password.ts';
import { createServices } from '../../src/services.ts';
import { createTestApp, TEST_PUBLIC_URL, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

const PASSWORD = 'ada password 1';
const FREE = 5;

/** Sign-in's brake on repeated failures, its decoy check and its bound on scrypt work, through HTTP on both engines. */
describe.each(ENGINES)('sign-in throttling (%s)', (engine) => {
  let t: TestApp;
  /** A second Hearth process on the same database. */
  let other: HearthApp;
  const clock = new ManualClock(new Date('2026-03-01T10:00:00Z'));

  const signIn = (email: string, password: string, app: HearthApp = t.app) =>
    app.inject({ method: 'POST', url: '/api/v2/session', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ email, password }) });
  const retryAfter = (response: LightMyRequestResponse) => Number(response.headers['retry-after']);

  async function addUser(loginEmail: string, password?: string) {
    await t.services.appUsers.add(cliWriter(t.communityId), { name: loginEmail, loginEmail, role: 'member', ...(password ? { password } : {}) });
  }

  async function fail(email: string, times: number, app: HearthApp = t.app) {
    for (let i = 0; i < times; i++) {
      const response = await signIn(email, 'not the password', app);
      expect(response.statusCode, response.body).toBe(403);
    }
  }

  beforeAll(async () => {
    t = await createTestApp(engine, { clock });
    const services = await createServices({
      db: t.db.database.db,
      clock,
      config: { jwtSecret: null, publicUrl: TEST_PUBLIC_URL, rateLimit: { perToken: 1_000_000, perAddress: 1_000_000, windowSeconds: 60 } },
    });
    other = await buildApp({ services, publicUrl: TEST_PUBLIC_URL, logger: false });
    await addUser('ada@example.org', PASSWORD);
    await addUser('bea@example.org', PASSWORD);
    await addUser('cy@example.org', PASSWORD);
    await addUser('dee@example.org', PASSWORD);
    await addUser('links@example.org');
  });
  afterAll(async () => {
    await other?.close();
    await t?.close();
  });

  it('brakes an address after five failures: 429 with Retry-After, the right password too, until the wait is over', async () => {
    await fail('ada@example.org', FREE);
    const braked = await signIn('ada@example.org', PASSWORD);
    expect(braked.statusCode, braked.body).toBe(429);
    expect(braked.headers['set-cookie']).toBeUndefined();
    expect(retryAfter(braked)).toBeGreaterThanOrEqual(1);
    expect(braked.json()).toMatchObject({ reason: expect.stringContaining('too many failed sign-ins'), rateLimit: { intervalRemaining: 0 } });
    // Another spelling of the address is the same address.
    expect((await signIn('ADA@Example.org', PASSWORD)).statusCode).toBe(429);

    // Each further failure doubles the wait.
    clock.advance(retryAfter(braked) * 1000);
    await fail('ada@example.org', 1);
    const longer = await signIn('ada@example.org', PASSWORD);
    expect(longer.statusCode).toBe(429);
    expect(retryAfter(longer)).toBeGreaterThan(retryAfter(braked));

    clock.advance(retryAfter(longer) * 1000);
    expect((await signIn('ada@example.org', PASSWORD)).statusCode).toBe(201);
  });

  it('forgets the failures after a success', async () => {
    await fail('bea@example.org', FREE - 1);
    expect((await signIn('bea@example.org', PASSWORD)).statusCode).toBe(201);
    await fail('bea@example.org', FREE - 1);
    expect((await signIn('bea@example.org', PASSWORD)).statusCode).toBe(201);
  });

  it('brakes an unknown address and a user without a password exactly as a known one', async () => {
    const answers = async (email: string) => {
      const seen = [];
      for (let i = 0; i <= FREE; i++) {
        const response = await signIn(email, 'not the password');
        seen.push({ status: response.statusCode, body: response.json(), retryAfter: response.headers['retry-after'] ?? null });
      }
      return seen;
    };
    const known = await answers('cy@example.org');
    expect(known.map((answer) => answer.status)).toEqual([403, 403, 403, 403, 403, 429]);
    expect(await answers('nobody@example.org')).toEqual(known);
    expect(await answers('links@example.org')).toEqual(known);
  });

  it('brakes an address on every process sharing the database', async () => {
    await fail('dee@example.org', FREE, other);
    const braked = await signIn('dee@example.org', PASSWORD);
    expect(braked.statusCode).toBe(429);
    clock.advance(retryAfter(braked) * 1000);
    // A success on one process ends the brake on the other.
    expect((await signIn('dee@example.org', PASSWORD, other)).statusCode).toBe(201);
    await fail('dee@example.org', FREE - 1);
    expect((await signIn('dee@example.org', PASSWORD)).statusCode).toBe(201);
  });

  it('runs one scrypt for a user without a password, as for a wrong password or an unknown address, and none while braked', async () => {
    const cost = async (email: string) => {
      const before = scryptActivity().derivations;
      const response = await signIn(email, 'not the password');
      return { status: response.statusCode, scrypts: scryptActivity().derivations - before };
    };
    await addUser('erin@example.org', PASSWORD);
    await addUser('links-only@example.org');
    expect(await cost('erin@example.org')).toEqual({ status: 403, scrypts: 1 });
    expect(await cost('someone-else@example.org')).toEqual({ status: 403, scrypts: 1 });
    expect(await cost('links-only@example.org')).toEqual({ status: 403, scrypts: 1 });
    await fail('links-only@example.org', FREE - 1);
    expect(await cost('links-only@example.org')).toEqual({ status: 429, scrypts: 0 });
  });

  it(`runs at most ${SCRYPT_CONCURRENCY} scrypt at once however many sign-ins arrive together`, async () => {
    resetScryptPeak();
    const before = scryptActivity().derivations;
    const count = 2 * SCRYPT_CONCURRENCY + 2;
    const responses = await Promise.all(Array.from({ length: count }, (_, i) => signIn(`crowd-${i}@example.org`, 'not the password')));
    expect(responses.map((response) => response.statusCode)).toEqual(Array(count).fill(403));
    expect(scryptActivity().derivations - before).toBe(count);
    expect(scryptActivity().peak).toBeLessThanOrEqual(SCRYPT_CONCURRENCY);
  });

  it('lets a few sign-ins wait for their turn, and refuses more with 503 and Retry-After', async () => {
    // Every place taken and every waiting place filled, by checks held open until released.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holders = Array.from({ length: SCRYPT_CONCURRENCY + SCRYPT_MAX_WAITING - 1 }, () => verifyCandidates('x', [], () => held));
    const waiting = signIn('patient@example.org', 'not the password');
    for (let i = 0; i < 400 && scryptActivity().waiting < SCRYPT_MAX_WAITING; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(scryptActivity()).toMatchObject({ running: 0, waiting: SCRYPT_MAX_WAITING });
    const refused = await signIn('impatient@example.org', 'not the password');
    expect(refused.statusCode, refused.body).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json()).toMatchObject({ success: false, error: { code: 'busy' } });
    release();
    await Promise.all(holders);
    expect((await waiting).statusCode).toBe(403);
  });
});
