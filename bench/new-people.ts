/**
 * The pushes of a community's first backfill: mostly people Hearth has never seen. The n-th push of a run
 * is a function of the run's name and n alone, so a run can be made again push for push, and the load
 * generator can ask for any n in any order from any connection.
 *
 * - 80 % of the pushes name a new person (email, GitHub handle, full name); the others repeat the person of
 *   an earlier push of the run, drawn uniformly, so people with many pushes are drawn more, as in a real
 *   history.
 * - 40 % of the new people are at one of 300 company domains (several people a company, so organizations
 *   are made and then joined); the others at free mail providers, which make no organization.
 * - Each push is a `commented_replied` of about 200 characters, with its own activity ID.
 */

const NEW_SHARE = 0.8;
const COMPANY_SHARE = 0.4;
const COMPANIES = 300;
/**
 * `.com` rather than the reserved `.example`: Hearth keys an organization by the email's registrable
 * domain on the Public Suffix List, which has no `.example`, so people there would make no organization
 * and the company share would measure nothing.
 */
const companyDomain = (k: number) => `company${k}.com`;
const PERSONAL_DOMAINS = ['gmail.com', 'outlook.com', 'yahoo.com', 'hotmail.com', 'proton.me', 'icloud.com'];
const FIRST = ['ana', 'ben', 'chen', 'dara', 'emil', 'fatima', 'gita', 'hugo', 'ines', 'jonas', 'kemal', 'lea', 'mateo', 'nia', 'omar', 'priya'];
const LAST = ['silva', 'okafor', 'novak', 'tanaka', 'schmidt', 'haddad', 'kowalski', 'murphy', 'rossi', 'nguyen', 'larsen', 'mehta'];
const SENTENCES = [
  'Thanks, this fixed the ingress timeouts for us. ',
  'I can reproduce it on the latest release on ARM. ',
  'Could the docs mention the webhook retry settings? ',
  'We moved staging over last week without trouble. ',
  'The upgrade notes skip the custom fields migration. ',
  'Happy to test a patch if you point me at a branch. ',
  'Latency went from 40 ms to 12 ms with the new pool. ',
  'Is SSO planned for the self-hosted build this year? ',
];
const SENTENCES_A_PUSH = 4;
/** Backfilled activities are history: one every half minute from this time on. */
const BACKFILL_START = Date.UTC(2025, 0, 1);

// Salts of the independent draws made for one push or one person.
const SALT = { isNew: 1, earlier: 2, first: 3, last: 4, company: 5, domain: 6, text: 7 } as const;

/** FNV-1a of the run's name: the seed of its draws. */
function seedOf(run: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < run.length; i++) hash = Math.imul(hash ^ run.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** A uniform number in [0, 1) from the seed, an index and a salt (MurmurHash3's finalizer over their mix). */
function draw(seed: number, index: number, salt: number): number {
  let h = (seed ^ Math.imul(index + 1, 0x9e3779b1) ^ Math.imul(salt, 0x85ebca6b)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) / 2 ** 32;
}

const pick = <T>(list: readonly T[], x: number): T => list[Math.floor(x * list.length)]!;

/** The push that first named the person of push n (n itself when the person is new). */
function firstPushOf(seed: number, n: number): number {
  let m = n;
  while (m > 0 && draw(seed, m, SALT.isNew) >= NEW_SHARE) m = Math.floor(draw(seed, m, SALT.earlier) * m);
  return m;
}

/** How many people the first `pushes` pushes of a run name. */
export function peopleIn(run: string, pushes: number): number {
  const seed = seedOf(run);
  let people = 0;
  for (let n = 0; n < pushes; n++) if (firstPushOf(seed, n) === n) people++;
  return people;
}

/** The n-th push of the run `run` (letters and digits, as its activity IDs and handles carry it). */
export function newPeoplePush(run: string, n: number) {
  const seed = seedOf(run);
  const p = firstPushOf(seed, n);
  const first = pick(FIRST, draw(seed, p, SALT.first));
  const last = pick(LAST, draw(seed, p, SALT.last));
  const tag = `${run}-${p.toString(36)}`;
  const domain =
    draw(seed, p, SALT.company) < COMPANY_SHARE
      ? companyDomain(Math.floor(draw(seed, p, SALT.domain) * COMPANIES))
      : pick(PERSONAL_DOMAINS, draw(seed, p, SALT.domain));
  const start = Math.floor(draw(seed, n, SALT.text) * SENTENCES.length);
  const text = Array.from({ length: SENTENCES_A_PUSH }, (_, k) => SENTENCES[(start + k) % SENTENCES.length])
    .join('')
    .trim();
  return {
    id: `${run}-${n}`,
    activityType: 'commented_replied',
    timestamp: new Date(BACKFILL_START + n * 30_000).toISOString(),
    user: {
      id: `${run}-p${p}`,
      email: `${first}.${last}.${tag}@${domain}`,
      github: `${first}-${last}-${tag}`,
      fullName: `${first[0]!.toUpperCase()}${first.slice(1)} ${last[0]!.toUpperCase()}${last.slice(1)}`,
    },
    content: { type: 'text', value: text },
  };
}
