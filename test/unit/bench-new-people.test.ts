import { describe, expect, it } from 'vitest';
import { newPeoplePush, peopleIn } from '../../bench/new-people.ts';

/** The first backfill's pushes: the mix the bench says it sends, the same for the same run and number. */
describe('the first backfill bench pushes', () => {
  const run = 'fcheck';
  const pushes = Array.from({ length: 5_000 }, (_, n) => newPeoplePush(run, n));

  it('names a new person in about 80 % of pushes, and repeats earlier people of the same run otherwise', () => {
    const seen = new Set<string>();
    let repeats = 0;
    for (const push of pushes) {
      if (seen.has(push.user.email)) repeats++;
      seen.add(push.user.email);
    }
    expect(seen.size).toBe(peopleIn(run, pushes.length));
    expect(repeats / pushes.length).toBeGreaterThan(0.17);
    expect(repeats / pushes.length).toBeLessThan(0.23);
    // A person keeps their handle and user ID whenever they come back.
    const byEmail = new Map(pushes.map((push) => [push.user.email, push.user]));
    for (const push of pushes) expect(push.user).toEqual(byEmail.get(push.user.email));
  });

  it('puts about 40 % of the people at one of 300 company domains, the others at mail providers', () => {
    const people = [...new Map(pushes.map((push) => [push.user.email, push.user.email.split('@')[1]!])).values()];
    const companies = people.filter((domain) => /^company\d+\.com$/.test(domain));
    expect(companies.length / people.length).toBeGreaterThan(0.36);
    expect(companies.length / people.length).toBeLessThan(0.44);
    expect(new Set(companies).size).toBeLessThanOrEqual(300);
    expect(new Set(companies).size).toBeGreaterThan(250);
  });

  it('gives every push its own activity ID and about 200 characters of text, and is the same when made again', () => {
    expect(new Set(pushes.map((push) => push.id)).size).toBe(pushes.length);
    for (const push of pushes.slice(0, 200)) {
      expect(push.content.value.length).toBeGreaterThan(180);
      expect(push.content.value.length).toBeLessThan(220);
    }
    expect(newPeoplePush(run, 4_321)).toEqual(pushes[4_321]);
    expect(newPeoplePush('other', 4_321).user.email).not.toBe(pushes[4_321]!.user.email);
  });
});
