/**
 * A labelled set of people for the quality of merge suggestions (test/http/merge-suggestion-quality.test.ts):
 * user pushes, each naming the person it is about, built from a seed so that every run pushes the same data.
 * Each case is one way two pushes may or may not be one person; `person` says which is true.
 */
import { seededRandom } from './seeded-random.ts';

const FIRST = [
  'Ada',
  'Grace',
  'Alan',
  'Linus',
  'Margaret',
  'Dennis',
  'Barbara',
  'Ken',
  'Frances',
  'Edsger',
  'Radia',
  'Donald',
  'Hedy',
  'John',
  'Katherine',
  'Tim',
  'Sophie',
  'Guido',
  'Anita',
  'Bjarne',
  'Shafi',
  'Leslie',
  'Jean',
  'Niklaus',
  'Karen',
  'Vint',
  'Mary',
  'Robert',
  'Lucía',
  'José',
  'Zoë',
  'Łukasz',
  'Amélie',
  'Søren',
  'Mei',
  'Ravi',
  'Aisha',
  'Omar',
  'Ingrid',
  'Pablo',
  'Chloé',
  'Nikolai',
  'Yuki',
  'Fatima',
  'Hugo',
  'Elena',
  'Mateo',
  'Priya',
  'Tomás',
  'Greta',
];
const LAST = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Torvalds',
  'Hamilton',
  'Ritchie',
  'Liskov',
  'Thompson',
  'Allen',
  'Dijkstra',
  'Perlman',
  'Knuth',
  'Lamarr',
  'McCarthy',
  'Johnson',
  'Berners-Lee',
  'Wilson',
  'van Rossum',
  'Borg',
  'Stroustrup',
  'Goldwasser',
  'Lamport',
  'Sammet',
  'Wirth',
  'Spärck Jones',
  'Cerf',
  'Shaw',
  'Tarjan',
  'García',
  'Núñez',
  'Müller',
  'Kowalski',
  'Dubois',
  'Sørensen',
  'Chen',
  'Patel',
  'Khan',
  'Haddad',
  'Larsen',
  'Ortega',
  'Lefèvre',
  'Ivanov',
  'Tanaka',
  'Rahman',
  'Moreau',
  'Rossi',
  'Silva',
  'Iyer',
  'Álvarez',
  'Berg',
];
const COMPANIES = [
  'analytical-engines.com',
  'cobol-works.io',
  'bletchley-labs.co.uk',
  'kernel-forge.org',
  'apollo-guidance.com',
  'unix-systems.net',
  'clu-research.com',
  'plan9-labs.com',
  'acme-widgets.com',
  'initech.com',
  'globex.io',
  'umbrella-bio.com',
  'stark-industries.com',
  'wayne-enterprises.com',
  'hooli.io',
  'pied-piper.com',
  'vandelay.com',
  'soylent.co',
  'tyrell.ai',
  'cyberdyne.net',
];
const CITIES = ['London', 'Paris', 'Berlin', 'Austin', 'Toronto', 'Madrid', 'Tokyo', 'Mumbai', 'Oslo', 'Lisbon', 'Warsaw', 'Nairobi'];
const FREE = ['gmail.com', 'outlook.com', 'yahoo.com', 'proton.me'];

export type CaseKind =
  | 'same name and organization'
  | 'one mailbox with a +tag'
  | 'same name, GitHub login = Discord username'
  | 'same name, work and personal email'
  | 'namesakes at different organizations'
  | 'namesakes, one at work and one personal'
  | 'shared team inbox'
  | 'family members'
  | 'common name, unrelated'
  | 'unrelated';

export interface LabelledPush {
  /** Who the push is about: two pushes of one person are a true pair. */
  person: string;
  kind: CaseKind;
  body: Record<string, unknown>;
}

export interface IdentityCases {
  pushes: LabelledPush[];
  /** How many people each kind has (a pair counts as its people). */
  people: number;
}

const plain = (text: string) =>
  text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ø/g, 'o')
    .replace(/ł/gi, 'l')
    .toLowerCase()
    .replace(/[^a-z]/g, '');

/** The labelled set: `scale` 1 is about 300 people in about 600 pushes. */
export function identityCases(seed = 42, scale = 1): IdentityCases {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const chance = (p: number) => random() < p;
  const used = new Set<string>();
  /** A first and last name no other person of the set has. */
  function uniqueName(): { first: string; last: string; full: string } {
    for (;;) {
      const first = pick(FIRST);
      const last = pick(LAST);
      const full = `${first} ${last}`;
      if (!used.has(full)) {
        used.add(full);
        return { first, last, full };
      }
    }
  }
  const pushes: LabelledPush[] = [];
  let people = 0;
  let n = 0;
  const add = (person: string, kind: CaseKind, body: Record<string, unknown>) => pushes.push({ person, kind, body: { id: `u-${++n}`, ...body } });
  const times = (count: number, make: (index: number) => void) => {
    for (let index = 0; index < Math.round(count * scale); index += 1) make(index);
  };
  const work = (first: string, last: string, domain: string) => `${plain(first)}.${plain(last)}@${domain}`;

  times(40, (i) => {
    const { first, last, full } = uniqueName();
    const domain = pick(COMPANIES);
    const person = `org-${i}`;
    people += 1;
    add(person, 'same name and organization', { fullName: full, email: work(first, last, domain), city: pick(CITIES) });
    add(person, 'same name and organization', {
      fullName: chance(0.5) ? full.toUpperCase() : `  ${full}  `,
      email: `${plain(first)[0]}${plain(last)}@${domain}`,
    });
  });
  times(20, (i) => {
    const { first, last, full } = uniqueName();
    const domain = chance(0.5) ? pick(COMPANIES) : 'fastmail.com';
    const person = `alias-${i}`;
    people += 1;
    const local = `${plain(first)}${plain(last)}`;
    add(person, 'one mailbox with a +tag', { fullName: full, email: `${local}+${pick(['news', 'meetups', 'github', 'lists'])}@${domain}` });
    add(person, 'one mailbox with a +tag', chance(0.5) ? { email: `${local}@${domain}` } : { fullName: full, email: `${local}@${domain}` });
  });
  times(25, (i) => {
    const { first, last, full } = uniqueName();
    const handle = `${plain(first)}${plain(last).slice(0, 4)}${Math.floor(random() * 90 + 10)}`;
    const person = `handle-${i}`;
    people += 1;
    add(person, 'same name, GitHub login = Discord username', {
      fullName: full,
      github: handle,
      ...(chance(0.5) ? { email: work(first, last, pick(COMPANIES)) } : {}),
    });
    add(person, 'same name, GitHub login = Discord username', { fullName: full, discord: handle });
  });
  times(25, (i) => {
    const { first, last, full } = uniqueName();
    const city = pick(CITIES);
    const person = `personal-${i}`;
    people += 1;
    add(person, 'same name, work and personal email', { fullName: full, email: work(first, last, pick(COMPANIES)), city });
    const personal = chance(0.6) ? `${plain(first)}.${plain(last)}` : `${plain(first)}${Math.floor(random() * 900 + 100)}`;
    add(person, 'same name, work and personal email', {
      fullName: full,
      email: `${personal}@${pick(FREE)}`,
      ...(chance(0.7) ? { city } : { city: pick(CITIES) }),
    });
  });
  times(25, (i) => {
    const { first, last, full } = uniqueName();
    const one = pick(COMPANIES);
    const domains = [one, pick(COMPANIES.filter((company) => company !== one))];
    const city = pick(CITIES);
    people += 2;
    add(`namesake-${i}-a`, 'namesakes at different organizations', { fullName: full, email: work(first, last, domains[0]!), city });
    add(`namesake-${i}-b`, 'namesakes at different organizations', {
      fullName: full,
      email: work(first, last, domains[1]!),
      city: chance(0.3) ? city : pick(CITIES),
    });
  });
  times(15, (i) => {
    const { first, last, full } = uniqueName();
    const city = pick(CITIES);
    people += 2;
    add(`loose-namesake-${i}-a`, 'namesakes, one at work and one personal', { fullName: full, email: work(first, last, pick(COMPANIES)), city });
    const personal = chance(0.5) ? `${plain(first)}.${plain(last)}${Math.floor(random() * 90)}` : `${plain(first)}${Math.floor(random() * 900 + 100)}`;
    add(`loose-namesake-${i}-b`, 'namesakes, one at work and one personal', {
      fullName: full,
      email: `${personal}@${pick(FREE)}`,
      city: chance(0.15) ? city : pick(CITIES),
    });
  });
  times(15, (i) => {
    const domain = pick(COMPANIES);
    const inbox = pick(['support', 'team', 'hello', 'info']);
    for (const side of ['a', 'b']) {
      const { first, full } = uniqueName();
      people += 1;
      add(`inbox-${i}-${side}`, 'shared team inbox', { fullName: full, email: `${inbox}+${plain(first)}@${domain}` });
    }
  });
  times(20, (i) => {
    const last = pick(LAST);
    const domain = `${plain(last)}-family${i}.net`;
    const city = pick(CITIES);
    for (const side of ['a', 'b']) {
      let first = pick(FIRST);
      while (used.has(`${first} ${last}`)) first = pick(FIRST);
      used.add(`${first} ${last}`);
      people += 1;
      add(`family-${i}-${side}`, 'family members', { fullName: `${first} ${last}`, email: `${plain(first)}@${domain}`, city });
    }
  });
  times(3, (i) => {
    const full = ['John Smith', 'Maria Garcia', 'Wei Zhang'][i % 3]!;
    for (let k = 0; k < 6; k += 1) {
      people += 1;
      add(`common-${i}-${k}`, 'common name, unrelated', { fullName: full, email: `${plain(full)}${k}${i}@${pick(FREE)}`, city: pick(CITIES) });
    }
  });
  times(120, (i) => {
    const { first, last, full } = uniqueName();
    people += 1;
    add(`single-${i}`, 'unrelated', {
      fullName: full,
      email: chance(0.5) ? work(first, last, pick(COMPANIES)) : `${plain(first)}${i}@${pick(FREE)}`,
      city: pick(CITIES),
    });
  });
  return { pushes, people };
}
