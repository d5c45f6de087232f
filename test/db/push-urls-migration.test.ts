import fs from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/** Migration 0036 drops the avatar and activity addresses stored before pushes kept only http and https ones. */
describe.each(ENGINES)('dropping pushed addresses that are not http or https (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t.close());

  const KEPT = ['https://img.example.com/a.png', 'HTTP://img.example.com/b.png', 'http:img.example.com/c.png'];
  const DROPPED = [
    'javascript:alert(1)',
    ' JavaScript:alert(1)',
    'java\tscript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'vbscript:msgbox(1)',
    '/relative.png',
    'img.example.com/d.png',
  ];

  it('drops every other scheme (as a browser reads it) from contacts, activities and source profiles, and keeps the rest', async () => {
    const db = t.services.db;
    const long = new Date('2020-01-01T00:00:00Z');
    const ids = new Map<string, number>();
    for (const [index, url] of [...KEPT, ...DROPPED].entries()) {
      const contact = await db
        .insertInto('contacts')
        .values({ community_id: t.communityId, name: `P${index}`, avatar_url: url, updated_at: long })
        .returning('id')
        .executeTakeFirstOrThrow();
      ids.set(url, contact.id);
      await db
        .insertInto('source_profiles')
        .values({
          community_id: t.communityId,
          source_id: t.sourceId,
          external_id: `p-${index}`,
          contact_id: contact.id,
          fields: JSON.stringify({ avatarUrl: url, bio: 'kept' }),
        })
        .execute();
      await db
        .insertInto('activities')
        .values({
          community_id: t.communityId,
          source_id: t.sourceId,
          activity_type: 'tweet',
          external_id: `a-${index}`,
          contact_id: contact.id,
          activity_time: long,
          url,
          updated_at: long,
        })
        .execute();
    }
    await sql.raw(fs.readFileSync(new URL('../../src/db/migrations/0036_push_urls_http_only.sql', import.meta.url), 'utf8')).execute(db);

    for (const url of [...KEPT, ...DROPPED]) {
      const kept = KEPT.includes(url);
      const id = ids.get(url)!;
      const contact = await db
        .selectFrom('contacts')
        .select(['avatar_url', 'updated_at'])
        .where('community_id', '=', t.communityId)
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(contact.avatar_url, url).toBe(kept ? url : null);
      expect(contact.updated_at.getTime() === long.getTime(), url).toBe(kept);
      const activity = await db
        .selectFrom('activities')
        .select('url')
        .where('community_id', '=', t.communityId)
        .where('contact_id', '=', id)
        .executeTakeFirstOrThrow();
      expect(activity.url, url).toBe(kept ? url : null);
      const profile = await db
        .selectFrom('source_profiles')
        .select('fields')
        .where('community_id', '=', t.communityId)
        .where('contact_id', '=', id)
        .executeTakeFirstOrThrow();
      expect(profile.fields, url).toEqual(kept ? { avatarUrl: url, bio: 'kept' } : { bio: 'kept' });
    }
  });
});
