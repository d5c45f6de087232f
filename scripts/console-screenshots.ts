// Takes the screenshots of the web console in docs/console/ (`npm run screenshots`): an embedded database in
// memory, some demo data pushed through the API, and Debian's Chromium (playwright-core) signed in as the admin.
import fs from 'node:fs';
import path from 'node:path';
import { buildApp } from '../src/app.ts';
import { systemClock } from '../src/clock.ts';
import { cliActor } from '../src/core/writer.ts';
import { openDatabase } from '../src/db/database.ts';
import { createServices } from '../src/services.ts';
import { CHROMIUM, launchChromium } from '../test/helpers/chromium.ts';
import { freePort } from '../test/helpers/free-port.ts';

const OUT = path.join(import.meta.dirname, '../docs/console');

const PEOPLE = [
  ['Ada Lovelace', 'ada@analytical.io', 'Principal Engineer', 'Analytical Engines', 'ada'],
  ['Grace Hopper', 'grace@cobol.io', 'Head of Developer Relations', 'Compilers Inc', 'ghopper'],
  ['Alan Turing', 'alan@bletchley.io', 'Research Scientist', 'Bletchley Labs', 'aturing'],
  ['Katherine Johnson', 'katherine@orbit.io', 'Staff Engineer', 'Orbit Systems', 'kjohnson'],
  ['Edsger Dijkstra', 'edsger@paths.io', 'Architect', 'Shortest Paths', 'ewd'],
  ['Barbara Liskov', 'barbara@substitution.io', 'VP Engineering', 'Substitution Co', 'bliskov'],
  ['Linus Torvalds', 'linus@kernel.io', 'Maintainer', 'Kernel Works', 'torvalds'],
  ['Margaret Hamilton', 'margaret@apollo.io', 'Director of Software', 'Apollo Guidance', 'mhamilton'],
] as const;

async function main() {
  if (!CHROMIUM) throw new Error('no Chromium at /usr/bin/chromium (apt-get install -y chromium)');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const database = await openDatabase({ engine: 'pglite', dataDir: null });
  const services = await createServices({
    db: database.db,
    listen: database.listen,
    clock: systemClock,
    config: {
      jwtSecret: null,
      publicUrl: url,
      rateLimit: { perToken: 100_000, perAddress: 100_000, trackerPerKey: 100_000, trackerPerAddress: 100_000, windowSeconds: 60 },
    },
  });
  const setup = await services.communities.init(cliActor());
  const app = await buildApp({ services, publicUrl: url, logger: false });
  await app.listen({ port, host: '127.0.0.1' });
  const call = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${url}${route}`, {
      method,
      headers: { authorization: `Bearer ${setup.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
    return response.json();
  };
  try {
    // Signed in before any data: the home page of a new community is the first-day guide.
    const admin = (await services.appUsers.list(setup.communityId)).find((user) => user.role === 'admin')!;
    const link = await services.appUsers.firstRunLink(setup.communityId, admin.id);
    const browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('dialog', (dialog) => void dialog.accept());
    fs.mkdirSync(OUT, { recursive: true });
    const shot = async (name: string) => {
      await page.waitForLoadState('networkidle');
      await page.screenshot({ path: path.join(OUT, `${name}.png`) });
      console.log(`docs/console/${name}.png`);
    };
    await page.goto(`${url}/sign-in`);
    await page.getByRole('heading', { name: 'Sign in to Hearth' }).waitFor();
    await shot('sign-in');
    await page.goto(link.url);
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    await page.getByLabel('New password').fill('a long admin password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('Your password is set').waitFor();
    await shot('account');
    await page.goto(url);
    await page.getByRole('heading', { name: 'Welcome to Hearth' }).waitFor();
    await page.getByRole('button', { name: 'Make an ingestion token' }).click();
    await page.getByText('Made a token with just the sources:write scope').waitFor();
    await shot('first-day');
    const tag = await call('POST', '/community/v1/tags', { name: 'speaker', entityTypes: ['member'] });
    let n = 0;
    for (const [fullName, email, title, companyName, github] of PEOPLE) {
      n += 1;
      const domain = email.split('@')[1];
      await call('POST', `/community/v1/source/${setup.sourceId}/user`, {
        id: `u-${n}`,
        fullName,
        email,
        titleAtCompany: title,
        companyName,
        companyDomain: domain,
        github: { type: 'handle', value: github },
      });
      for (let i = 0; i < n; i += 1) {
        await call('POST', `/community/v1/source/${setup.sourceId}/activity`, {
          id: `a-${n}-${i}`,
          activityType: i % 2 ? 'made_post_topic' : 'starred_repo',
          user: { id: `u-${n}` },
          timestamp: new Date(Date.now() - (n * 7 + i) * 3_600_000).toISOString(),
          content: `Notes on ${['identity resolution', 'keyset paging', 'erasure', 'lead scores'][i % 4]} from ${fullName.split(' ')[0]}`,
        });
      }
    }
    const contacts = ((await call('GET', '/api/v2/contacts?limit=20')).data as { id: string; name: string }[]).filter((c) =>
      PEOPLE.slice(0, 3).some(([name]) => name === c.name),
    );
    const segment = (await call('POST', '/api/v2/segments', { name: 'Champions' })).data;
    await call('POST', '/api/v2/segments', { name: 'Conference speakers' });
    await call('POST', '/api/v2/contacts/bulk-update', { contactIds: contacts.map((c) => c.id), segmentId: segment.id, tagIdsToAdd: [tag.id] });
    const signups = (await call('POST', '/api/v2/admin/sources', { name: 'Website signups' })).data as { sourceId: number };
    await call('POST', '/api/v2/admin/tokens', { name: 'nightly export', scopes: ['contacts:read', 'activities:read'] });
    await call('POST', '/api/v2/admin/users', { name: 'Mia Member', loginEmail: 'mia@example.org' });
    await call('DELETE', '/community/v1/user/leave@example.org');

    const open = async (route: string, heading: string, name: string) => {
      await page.goto(`${url}${route}`);
      await page.getByRole('heading', { name: heading, exact: true }).waitFor();
      await shot(name);
    };
    await page.goto(`${url}/contacts`);
    await page.getByRole('button', { name: '+ Add filter' }).click();
    await page.getByLabel('Field of filter 1').selectOption('title');
    await page.getByLabel('Operator of filter 1').selectOption('like');
    await page.getByLabel('Value of filter 1').fill('engineer');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByLabel('Select Ada Lovelace').check();
    await shot('contacts');
    // Two people pushed again under other addresses, whom nothing merges: the Duplicates page's pairs (after the contacts' picture, which they would crowd).
    await call('POST', `/community/v1/source/${setup.sourceId}/user`, { id: 'u-ada-work', fullName: 'Ada Lovelace', email: 'a.lovelace@analytical.io' });
    await call('POST', `/community/v1/source/${setup.sourceId}/user`, { id: 'u-grace-meetups', email: 'grace+meetups@cobol.io' });
    await services.mergeSuggestions.recomputeAll(setup.communityId);
    await open(`/contacts/${contacts.find((c) => c.name === PEOPLE[0][0])!.id}`, PEOPLE[0][0], 'contact');
    await open('/contacts/duplicates', 'Duplicates', 'duplicates');
    await open('/organizations', 'Organizations', 'organizations');
    await open('/activities', 'Activities', 'activities');
    await open(`/segments/${segment.id}`, 'Segment: Champions', 'segment');
    await open('/tokens', 'API tokens', 'tokens');
    await open('/sources', 'Sources', 'sources');
    // The form for a new connector, filled in (nothing is sent: the screenshots reach no platform).
    await page.getByRole('button', { name: 'Add a connector' }).click();
    const form = page.getByRole('form', { name: 'Add a connector' });
    await form.getByLabel('Repository names').fill('hearth-dev/hearth\nhearth-dev/hearth-docs');
    await form.getByLabel('Token', { exact: true }).fill('github_pat_11AAAAAAA0example');
    await form.getByLabel('Record commits').check();
    await form.getByText('Advanced').click();
    await shot('connector-form');
    await form.getByLabel('Discourse').check();
    await form.getByLabel('Forum URL').fill('https://forum.hearth.dev');
    await form.getByLabel('API username').fill('system');
    await form.getByLabel('API key', { exact: true }).fill('0123456789abcdef0123456789abcdef');
    await shot('connector-form-discourse');
    await open('/users', 'Users', 'users');
    await open('/removal-requests', 'Removal requests', 'removal-requests');
    await open('/jobs', 'Jobs', 'jobs');
    await open('/audit-log', 'Audit log', 'audit-log');
    // Eight weeks of activity from two sources (after the other pictures, which it would crowd): the home page's dashboard.
    const TYPES = ['made_post_topic', 'commented_replied', 'starred_repo'];
    for (const sourceId of [setup.sourceId, signups.sourceId]) {
      const batch = [];
      for (let daysAgo = 0; daysAgo < 56; daysAgo += 1) {
        const count = (sourceId === setup.sourceId ? 3 : 1) + ((daysAgo * 7) % 5) + (daysAgo < 28 ? 2 : 0);
        for (let i = 0; i < count; i += 1) {
          batch.push({
            id: `spread-${sourceId}-${daysAgo}-${i}`,
            activityType: TYPES[(daysAgo + i) % TYPES.length],
            user: { id: `u-${1 + ((daysAgo + i * 3) % PEOPLE.length)}` },
            timestamp: new Date(Date.now() - daysAgo * 86_400_000 - i * 600_000).toISOString(),
          });
        }
      }
      await call('POST', `/community/v1/source/${sourceId}/activities`, batch);
    }
    await open('/', 'Home', 'home');
    // Search: "/" reaches the box from anywhere; a few letters of a GitHub handle find the person.
    await page.keyboard.press('/');
    await page.keyboard.type('ghop');
    await page.getByRole('listbox').getByRole('option').first().waitFor();
    await shot('search');
    await browser.close();
  } finally {
    await app.close();
    await database.close();
  }
}

await main();
