import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { plainText } from '../src/modules/activities/markdown-text.ts';
import { sentimentOf } from '../src/modules/activities/sentiment.ts';
import { extractTopics } from '../src/modules/activities/topics.ts';
import { normalizeEmail, normalizeHandle, type Identity } from '../src/modules/identity/identity-values.ts';
import { isPersonalMailDomain } from '../src/modules/organizations/domains.ts';

/**
 * The first backfill's equal-work baseline (`POST /bare-backfill-batch`): what a careful hand-written server
 * does for a batch of pushes of new-people.ts, writing the same rows Hearth writes for it, in as few
 * statements as it can, without Hearth's layers (authentication, validation, the identity rules' general
 * cases, group commit, webhooks' bookkeeping in the application).
 *
 * The rows: contacts (with their name, email, organization and activity counts), email and GitHub
 * identities, the source's profile of each person, organizations and their domains (with member counts),
 * activities (with their sentiment), topics and topic links, and one audit entry per push. The text is read
 * by Hearth's own sentiment and topic functions, and emails and handles keyed by its identity functions
 * (Gmail's dots, case): the same CPU work a server that stores them must do.
 *
 * Five round trips, whatever the batch's size, each statement prepared once per connection: `begin`; one read (the people's identities and profiles, the
 * organizations of their domains); one statement making the new organizations, their domains and the new
 * contacts (already holding their fields and counts, where Hearth makes them and then updates them); one
 * statement writing everything else; `commit`.
 *
 * It reads only what new-people.ts sends: a person has an email (the key of a new person within the batch)
 * and a GitHub handle; an activity has a type, an ID, a time and text content, no parent.
 */

interface BackfillPush {
  id: string;
  activityType: string;
  timestamp: string;
  content: { type: 'text'; value: string };
  user: { id: string; email: string; github: string; fullName: string };
}

interface Person {
  /** Null until made. */
  contactId: number | null;
  /** The email as given (the contact's primary email). */
  email: string;
  name: string;
  domain: string | null;
  /** The push that named the person first (its audit entry says the contact was made there). */
  firstPush: number;
  activities: { count: number; first: string; latest: string };
}

/** Organization names as Hearth gives them when only the domain is known: `company12.com` → `Company12`. */
const organizationName = (domain: string) => domain.charAt(0).toUpperCase() + domain.slice(1, domain.indexOf('.'));

export function bareBackfillRoute(app: FastifyInstance, pool: pg.Pool, target: { communityId: number; sourceId: number }): void {
  const { communityId, sourceId } = target;
  app.post('/bare-backfill-batch', async (request, reply) => {
    const pushes = request.body as BackfillPush[];
    const identity = (normalized: ReturnType<typeof normalizeEmail>): Identity => {
      if (!normalized.ok) throw new Error(normalized.reason);
      return normalized.identity;
    };
    const emailIds = pushes.map((push) => identity(normalizeEmail(push.user.email)));
    const githubIds = pushes.map((push) => identity(normalizeHandle('github', push.user.github)));
    const emails = emailIds.map((id) => id.value);
    const githubs = githubIds.map((id) => id.value);
    const domains = emails.map((email) => {
      const domain = email.slice(email.lastIndexOf('@') + 1);
      return isPersonalMailDomain(domain) ? null : domain;
    });
    // The text's analysis, before the transaction as Hearth does it.
    const analysed = pushes.map((push) => {
      const text = plainText(push.content);
      return { sentiment: sentimentOf(text), topics: extractTopics(`\n\n${text}`) };
    });

    const client = await pool.connect();
    // Named, so that each connection parses and plans each statement once, as Hearth's statements are.
    const named = <R extends pg.QueryResultRow>(name: string, text: string, values: unknown[]) =>
      client.query<R>({ name: `bare_backfill_${name}`, text, values });
    try {
      await client.query('begin');
      const found = await named<{
        identities: { type: string; value: string; contactId: number }[];
        profiles: { externalId: string; contactId: number }[];
        organizations: { domain: string; id: number }[];
      }>(
        'read',
        `select
           (select coalesce(json_agg(json_build_object('type', i.type, 'value', i.value, 'contactId', i.contact_id)), '[]')
              from unnest($2::text[], $3::text[]) as u(type, value)
              join contact_identities i on i.community_id = $1 and i.type = u.type and i.value = u.value) as identities,
           (select coalesce(json_agg(json_build_object('externalId', p.external_id, 'contactId', p.contact_id)), '[]')
              from source_profiles p where p.community_id = $1 and p.source_id = $4 and p.external_id = any($5::text[])) as profiles,
           (select coalesce(json_agg(json_build_object('domain', d.domain, 'id', d.organization_id)), '[]')
              from organization_domains d where d.community_id = $1 and d.domain = any($6::text[])) as organizations`,
        [
          communityId,
          [...emails.map(() => 'email'), ...githubs.map(() => 'github')],
          [...emails, ...githubs],
          sourceId,
          pushes.map((push) => push.user.id),
          [...new Set(domains.filter((domain) => domain !== null))],
        ],
      );
      const { identities, profiles, organizations } = found.rows[0]!;
      const contactByIdentity = new Map(identities.map((row) => [`${row.type}\u0000${row.value}`, Number(row.contactId)]));
      const contactByProfile = new Map(profiles.map((row) => [row.externalId, Number(row.contactId)]));
      const organizationOf = new Map(organizations.map((row) => [row.domain, Number(row.id)]));

      // Each push's person: an existing contact (by profile, email or handle), or a new one named earlier in
      // the batch, or a new one.
      const existing = new Map<number, Person>();
      const made = new Map<string, Person>();
      const personOf = pushes.map((push, index) => {
        const contactId =
          contactByProfile.get(push.user.id) ?? contactByIdentity.get(`email\u0000${emails[index]}`) ?? contactByIdentity.get(`github\u0000${githubs[index]}`);
        const time = push.timestamp;
        let person = contactId !== undefined ? existing.get(contactId) : made.get(emails[index]!);
        if (!person) {
          person = {
            contactId: contactId ?? null,
            email: emailIds[index]!.display,
            name: push.user.fullName,
            domain: domains[index]!,
            firstPush: index,
            activities: { count: 0, first: time, latest: time },
          };
          if (contactId !== undefined) existing.set(contactId, person);
          else made.set(emails[index]!, person);
        }
        person.activities.count += 1;
        if (time < person.activities.first) person.activities.first = time;
        if (time > person.activities.latest) person.activities.latest = time;
        return person;
      });

      // New organizations (with the new people who join them) and new contacts, in one statement.
      const newPeople = [...made.values()];
      const isNew = new Set(newPeople);
      const newOrganizations = [...new Set(newPeople.flatMap((person) => (person.domain && !organizationOf.has(person.domain) ? [person.domain] : [])))];
      const joining = new Map<string, number>();
      for (const person of newPeople) if (person.domain) joining.set(person.domain, (joining.get(person.domain) ?? 0) + 1);
      if (newPeople.length) {
        const makes = await named<{ organizations: { id: number; domain: string }[]; contacts: { id: number; email: string }[] }>(
          'make',
          `with new_organizations as (
             insert into organizations (community_id, name, primary_domain, source_id, member_count, created_at, updated_at)
             select $1, t.name, t.domain, $2, t.members, now(), now()
             from unnest($3::text[], $4::text[], $5::int[]) with ordinality as t(name, domain, members, n) order by t.n
             returning id, primary_domain),
           new_domains as (
             insert into organization_domains (community_id, domain, organization_id) select $1, primary_domain, id from new_organizations),
           new_contacts as (
             insert into contacts (community_id, name, full_name, primary_email, company_name, company_website, organization_id,
               activity_count_all, first_activity_at, latest_activity_at, created_at, updated_at)
             select $1, t.name, t.name, t.email, t.company, 'https://' || t.domain, coalesce(t.organization_id, o.id),
               t.count, t.first, t.latest, now(), now()
             from unnest($6::text[], $7::text[], $8::text[], $9::text[], $10::bigint[], $11::int[], $12::timestamptz[], $13::timestamptz[])
               with ordinality as t(name, email, company, domain, organization_id, count, first, latest, n)
             left join new_organizations o on o.primary_domain = t.domain
             order by t.n
             returning id, primary_email)
           select (select coalesce(json_agg(json_build_object('id', id, 'domain', primary_domain)), '[]') from new_organizations) as organizations,
             (select coalesce(json_agg(json_build_object('id', id, 'email', primary_email)), '[]') from new_contacts) as contacts`,
          [
            communityId,
            sourceId,
            newOrganizations.map(organizationName),
            newOrganizations,
            newOrganizations.map((domain) => joining.get(domain)!),
            newPeople.map((person) => person.name),
            newPeople.map((person) => person.email),
            newPeople.map((person) => (person.domain ? organizationName(person.domain) : null)),
            newPeople.map((person) => person.domain),
            newPeople.map((person) => (person.domain ? (organizationOf.get(person.domain) ?? null) : null)),
            newPeople.map((person) => person.activities.count),
            newPeople.map((person) => person.activities.first),
            newPeople.map((person) => person.activities.latest),
          ],
        );
        const contactOf = new Map(makes.rows[0]!.contacts.map((row) => [row.email, Number(row.id)]));
        for (const person of newPeople) person.contactId = contactOf.get(person.email)!;
      }
      // Existing organizations that new people joined.
      const joined = [...joining].filter(([domain]) => organizationOf.has(domain));

      // Everything else in one statement.
      const contactIds = personOf.map((person) => person.contactId!);
      const links = pushes.flatMap((push, index) => analysed[index]!.topics.map((name) => ({ type: push.activityType, id: push.id, name })));
      const topicNames = [...new Map(links.map((link) => [link.name.toLowerCase(), link.name])).values()];
      const people = [...existing.values()];
      const stored = await named<{ activities: { id: number; type: string; externalId: string }[] }>(
        'write',
        `with new_identities as (
           insert into contact_identities (community_id, type, value, display_value, contact_id, source_id)
           select $1, t.type, t.value, t.display, t.contact_id, $2 from unnest($3::text[], $4::text[], $5::text[], $6::bigint[]) as t(type, value, display, contact_id)
           on conflict (community_id, type, value) do nothing),
         profiles as (
           insert into source_profiles (community_id, source_id, external_id, contact_id, fields, updated_at)
           select distinct on (t.external_id) $1, $2, t.external_id, t.contact_id, t.fields, now()
           from unnest($7::text[], $8::bigint[], $9::jsonb[]) with ordinality as t(external_id, contact_id, fields, n)
           order by t.external_id, t.n desc
           on conflict (community_id, source_id, external_id) do update set
             contact_id = excluded.contact_id, fields = source_profiles.fields || excluded.fields, updated_at = excluded.updated_at),
         upserted as (
           insert into activities (community_id, source_id, activity_type, external_id, contact_id, activity_time, content, content_type,
             sentiment, created_at, updated_at)
           select $1, $2, t.type, t.id, t.contact_id, t.time, t.content, 'text', t.sentiment, now(), now()
           from unnest($10::text[], $11::text[], $12::bigint[], $13::timestamptz[], $14::text[], $15::text[]) with ordinality
             as t(type, id, contact_id, time, content, sentiment, n)
           order by t.n
           on conflict (community_id, source_id, activity_type, external_id) do update set
             contact_id = excluded.contact_id, activity_time = excluded.activity_time, content = excluded.content,
             sentiment = excluded.sentiment, updated_at = excluded.updated_at
           returning id, activity_type, external_id, contact_id),
         new_topics as (
           insert into topics (community_id, name) select $1, n from unnest($16::text[]) as n
           on conflict (community_id, lower(name)) do nothing
           returning id, name),
         named_topics as (
           select id, name from new_topics
           union all
           select id, name from topics where community_id = $1 and lower(name) = any(array(select lower(n) from unnest($16::text[]) as n))),
         topic_links as (
           insert into activity_topics (community_id, activity_id, topic_id)
           select distinct $1, a.id, t.id
           from unnest($17::text[], $18::text[], $19::text[]) as l(type, id, name)
           join upserted a on a.activity_type = l.type and a.external_id = l.id
           join named_topics t on lower(t.name) = lower(l.name)
           on conflict do nothing),
         counts as (
           update contacts c set activity_count_all = c.activity_count_all + u.count, first_activity_at = least(c.first_activity_at, u.first),
             latest_activity_at = greatest(c.latest_activity_at, u.latest), updated_at = now()
           from unnest($20::bigint[], $21::int[], $22::timestamptz[], $23::timestamptz[]) as u(id, count, first, latest)
           where c.community_id = $1 and c.id = u.id),
         members as (
           update organizations o set member_count = o.member_count + j.joined
           from unnest($24::bigint[], $25::int[]) as j(id, joined)
           where o.community_id = $1 and o.id = j.id),
         audit as (
           insert into audit_log (community_id, actor, token_jti, operation, entity_ids, detail)
           select $1, 'bench', null, 'activity.push', array['a_' || a.id, 'c_' || a.contact_id],
             jsonb_build_object('sourceId', $2::bigint, 'activityType', t.type, 'contact', jsonb_build_object('created', t.created, 'merged', '[]'::jsonb))
           from unnest($10::text[], $11::text[], $26::boolean[]) with ordinality as t(type, id, created, n)
           join upserted a on a.activity_type = t.type and a.external_id = t.id
           order by t.n)
         select coalesce(json_agg(json_build_object('id', id, 'type', activity_type, 'externalId', external_id)), '[]') as activities from upserted`,
        [
          communityId,
          sourceId,
          [...pushes.map(() => 'email'), ...pushes.map(() => 'github')],
          [...emails, ...githubs],
          [...emailIds.map((id) => id.display), ...githubIds.map((id) => id.display)],
          [...contactIds, ...contactIds],
          pushes.map((push) => push.user.id),
          contactIds,
          pushes.map((push) => JSON.stringify(push.user)),
          pushes.map((push) => push.activityType),
          pushes.map((push) => push.id),
          contactIds,
          pushes.map((push) => push.timestamp),
          pushes.map((push) => push.content.value),
          analysed.map((analysis) => analysis.sentiment),
          topicNames,
          links.map((link) => link.type),
          links.map((link) => link.id),
          links.map((link) => link.name),
          people.map((person) => person.contactId),
          people.map((person) => person.activities.count),
          people.map((person) => person.activities.first),
          people.map((person) => person.activities.latest),
          joined.map(([domain]) => organizationOf.get(domain)!),
          joined.map(([, count]) => count),
          personOf.map((person, index) => isNew.has(person) && person.firstPush === index),
        ],
      );
      await client.query('commit');
      const activityOf = new Map(stored.rows[0]!.activities.map((row) => [`${row.type}\u0000${row.externalId}`, row.id]));
      // Hearth's batch answer, item by item.
      const results = pushes.map((push, index) => ({
        index,
        status: 'accepted',
        contactId: `c_${contactIds[index]}`,
        activityId: `a_${activityOf.get(`${push.activityType}\u0000${push.id}`)}`,
        warnings: [],
      }));
      return reply.code(202).send({ status: 'accepted', accepted: results.length, rejected: 0, results });
    } catch (error) {
      await client.query('rollback');
      throw error;
    } finally {
      client.release();
    }
  });
}
