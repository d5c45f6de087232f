import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { cliWriter } from '../../src/core/writer.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import { accepted } from '../helpers/ingest.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

interface Job {
  company: string | null;
  title: string | null;
  startDate: string | null;
  endDate: string | null;
}

/** A contact's `jobHistory` is filled from the titles and companies a contact has had, newest first. */
describe.each(ENGINES)('contact job history (%s)', (engine) => {
  let t: TestApp;
  let github: number;
  let both: number;
  const today = () => new Date().toISOString().slice(0, 10);

  beforeAll(async () => {
    t = await createTestApp(engine);
    github = Number((await t.services.sources.create(cliWriter(t.communityId), { name: 'GitHub' })).id);
    both = Number((await t.services.sources.create(cliWriter(t.communityId), { name: 'CRM' })).id);
  });
  afterAll(() => t.close());

  async function jobsOf(contactId: string): Promise<Job[]> {
    const response = await t.get(`/api/v2/contacts/${contactId}?cols=jobHistory`);
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { data: { jobHistory: Job[] } }).data.jobHistory;
  }

  it('begins a job when a contact first has a title or company, and ends it when either changes', async () => {
    const id = (await accepted(t, 'user', { id: 'u-ada', email: 'ada@example.com', titleAtCompany: 'Engineer', companyName: 'Acme' })).contactId;
    expect(await jobsOf(id)).toEqual([{ company: 'Acme', title: 'Engineer', startDate: today(), endDate: null }]);

    // The same job pushed again, or a push without title or company, changes nothing.
    await accepted(t, 'user', { id: 'u-ada', email: 'ada@example.com', titleAtCompany: 'Engineer', companyName: 'Acme', fullName: 'Ada L.' });
    await accepted(t, 'user', { id: 'u-ada', email: 'ada@example.com', bio: 'Builds things' });
    expect(await jobsOf(id)).toHaveLength(1);

    await accepted(t, 'user', { id: 'u-ada', email: 'ada@example.com', titleAtCompany: 'Staff Engineer' });
    await accepted(t, 'user', { id: 'u-ada', email: 'ada@example.com', titleAtCompany: 'CTO', companyName: 'Globex' });
    expect(await jobsOf(id)).toEqual([
      { company: 'Globex', title: 'CTO', startDate: today(), endDate: null },
      { company: 'Acme', title: 'Staff Engineer', startDate: today(), endDate: today() },
      { company: 'Acme', title: 'Engineer', startDate: today(), endDate: today() },
    ]);
  });

  it('is empty for a contact with neither title nor company, and only where asked for', async () => {
    const id = (await accepted(t, 'user', { id: 'u-bob', email: 'bob@gmail.com' })).contactId;
    expect(await jobsOf(id)).toEqual([]);
    const plain = await t.get(`/api/v2/contacts/${id}`);
    expect(Object.keys((plain.json() as { data: object }).data)).not.toContain('jobHistory');
  });

  it('keeps both histories through a merge', async () => {
    // Two contacts of one person, each with a job, then a push naming both identities merges them.
    const older = (await accepted(t, 'user', { id: 'u-eve', email: 'eve@gmail.com', titleAtCompany: 'Analyst', companyName: 'Initech' })).contactId;
    const newer = (await accepted(t, 'user', { id: 'gh-eve', github: 'eve-gh', titleAtCompany: 'Maintainer', companyName: 'OSS Co' }, { sourceId: github }))
      .contactId;
    expect(newer).not.toBe(older);
    const merged = await accepted(t, 'user', { id: 'crm-eve', email: 'eve@gmail.com', github: 'eve-gh' }, { sourceId: both });
    expect(merged.contactId).toBe(older);
    const jobs = await jobsOf(older);
    // The survivor's title and company win; the merged contact's job ended at the merge.
    expect(jobs).toEqual(
      expect.arrayContaining([
        { company: 'Initech', title: 'Analyst', startDate: today(), endDate: null },
        { company: 'OSS Co', title: 'Maintainer', startDate: today(), endDate: today() },
      ]),
    );
    expect(jobs).toHaveLength(2);
    expect(jobs[0]).toMatchObject({ company: 'Initech', endDate: null });
  });

  it('is erased with the rest of a removed contact', async () => {
    const id = (await accepted(t, 'user', { id: 'u-zed', email: 'zed@example.com', titleAtCompany: 'Designer', companyName: 'Umbrella' })).contactId;
    expect(await jobsOf(id)).toHaveLength(1);
    expect((await t.send('DELETE', '/community/v1/user/zed@example.com', undefined)).statusCode).toBe(200);
    await createWorker({ db: t.services.db, clock: systemClock, queue: t.services.jobs }).runUntilIdle();
    // The contact stays, anonymized, with nothing of who the person was.
    expect(await jobsOf(id)).toEqual([]);
    const row = await t.services.db
      .selectFrom('contacts')
      .select(['job_history', 'anonymized_at'])
      .where('community_id', '=', t.communityId)
      .where('id', '=', Number(id.slice(2)))
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ job_history: [], anonymized_at: expect.any(Date) });
  });
});
