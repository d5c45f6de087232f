import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Executor } from '../../core/executor.ts';
import type { CursorPosition } from '../../core/cursor.ts';
import { invalidCursor } from '../../core/cursor.ts';
import { aliasKeySql, nameKeySql, siteKeySql, taggedSql } from './match-keys.ts';
import { DIFFERENT_ORGANIZATIONS_CAP, MAX_NAME_GROUP, THRESHOLD, WEIGHTS } from './merge-suggestion-rules.ts';

const lit = (value: number) => sql.lit(value);

/**
 * The contacts a run computes again, as CTEs every statement of the run shares: those changed since `since`
 * (`dirty`, erased ones included, so that their pairs go), and every contact whose full name is one of theirs
 * (`named`, with the size of its name group, since a newcomer to a name changes what the name is worth to each
 * pair of that name); `affected` is both. Each lookup is by an index: the community's contacts, the name key
 * (contacts_name_key). With no `since` (a community's first run, or everything again), every contact, read
 * once and grouped by name in one pass instead of a probe of the index per name.
 */
function affectedCtes(communityId: number, since: Date | null): RawBuilder<unknown> {
  if (since === null) {
    // Materialized, so that the keys come from one pass over the table (the name key's index would give them
    // in order, but reading every row through it costs more than sorting them).
    return sql`
    keyed as materialized (
      select c.id, ${nameKeySql('c.full_name')} as k from contacts c
      where c.community_id = ${communityId} and c.full_name is not null and c.anonymized_at is null
    ),
    named as (
      select x.id, x.k, count(*) over (partition by x.k) as n from keyed x where x.k <> ''
    ),
    affected as (
      select c.id from contacts c where c.community_id = ${communityId}
    )`;
  }
  return sql`
    dirty as (
      select c.id, ${nameKeySql('c.full_name')} as k from contacts c
      where c.community_id = ${communityId} and c.updated_at >= ${since}
    ),
    touched as (
      select distinct d.k from dirty d where d.k is not null
    ),
    named as (
      select c.id, t.k, count(*) over (partition by t.k) as n
      from touched t
      join contacts c on c.community_id = ${communityId} and c.full_name is not null and ${nameKeySql('c.full_name')} = t.k
      where t.k <> '' and c.anonymized_at is null
    ),
    affected as (
      select id from dirty union select id from named
    )`;
}

/** What a platform's handle is called in a reason, by identity type or source kind. */
const HANDLE_LABEL = sql`case t
  when 'github' then 'GitHub login' when 'twitter' then 'X handle' when 'discord' then 'Discord username'
  when 'slack' then 'Slack name' when 'devto' then 'DEV username' when 'discourse' then 'Discourse username'
  when 'stackoverflow' then 'Stack Exchange name' when 'hackernews' then 'Hacker News username' when 'reddit' then 'Reddit username'
  else 'username' end`;

/** The handles of contact `id` (with `username`, its column): GitHub, X and Discord identities, its username, its profiles' usernames. */
function handlesOf(communityId: number, id: RawBuilder<unknown>, username: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`(
    select regexp_replace(i.value, '#[0-9]{4}$', '') as h, i.type as t from contact_identities i
    where i.community_id = ${communityId} and i.contact_id = ${id} and i.type in ('github', 'twitter', 'discord')
    union all
    select lower(btrim(sp.fields ->> 'username')), s.kind from source_profiles sp
    join sources s on s.community_id = sp.community_id and s.id = sp.source_id
    where sp.community_id = ${communityId} and sp.contact_id = ${id} and jsonb_typeof(sp.fields -> 'username') = 'string'
    union all
    select lower(btrim(${username})), 'username' where ${username} is not null
  )`;
}

/** The personal websites the source profiles of contact `id` name (a GitHub blog, a Stack Overflow or Discourse website). */
function sitesOf(communityId: number, id: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`(
    select ${siteKeySql(sql`e ->> 'url'`)} as s from source_profiles sp
    cross join lateral jsonb_array_elements(case when jsonb_typeof(sp.fields -> 'externalProfiles') = 'array' then sp.fields -> 'externalProfiles' else '[]'::jsonb end) e
    where sp.community_id = ${communityId} and sp.contact_id = ${id}
      and jsonb_typeof(e) = 'object' and lower(e ->> 'name') in ('website', 'blog') and jsonb_typeof(e -> 'url') = 'string'
  )`;
}

/**
 * Every pair with a contact of `affected` that the rules score, with its score and reasons (docs/ingestion.md,
 * "Likely duplicates"): candidates come from two indexed keys, the name (pairs within a name group of at most
 * MAX_NAME_GROUP) and the mailbox without its `+tag`; each candidate is then weighed by what its two contacts
 * hold. Pairs marked as never one person (contact_never_merge) are left out.
 */
function scoredPairs(communityId: number): RawBuilder<unknown> {
  const c = communityId;
  const ka = nameKeySql('ca.full_name');
  const kb = nameKeySql('cb.full_name');
  return sql`
    emails as (
      select i.contact_id, ${aliasKeySql('i.value')} as ak, ${taggedSql('i.value')} as tagged
      from affected a join contact_identities i on i.community_id = ${c} and i.contact_id = a.id and i.type = 'email'
    ),
    alias_pairs as (
      select e.contact_id as x, o.contact_id as y from emails e
      join contact_identities o on o.community_id = ${c} and o.type = 'email' and ${taggedSql('o.value')}
        and ${aliasKeySql('o.value')} = e.ak and o.contact_id <> e.contact_id
      union all
      select e.contact_id, o.contact_id from emails e
      join contact_identities o on o.community_id = ${c} and o.type = 'email' and o.value = e.ak and o.contact_id <> e.contact_id
      where e.tagged
    ),
    candidates as (
      -- The name key of a pair found by its name (null for one found by its mailbox), so that it is not computed again.
      select least(p.x, p.y) as lo, greatest(p.x, p.y) as hi, bool_or(p.alias) as alias, max(p.k) as k
      from (
        select a.id as x, b.id as y, false as alias, a.k from named a
        join named b on b.k = a.k and b.id > a.id
        where a.n <= ${lit(MAX_NAME_GROUP)}
        union all
        select x, y, true, null from alias_pairs
      ) p
      group by 1, 2
    ),
    -- Materialized: each name key is computed once here, not again at each use of it below.
    pairs as materialized (
      select p.lo, p.hi, p.alias, ca.full_name as name_a, coalesce(p.k, ${ka}) as ka, coalesce(p.k, ${kb}) as kb,
        ca.organization_id as org_a, cb.organization_id as org_b, ca.city as city_a, cb.city as city_b,
        ca.username as user_a, cb.username as user_b
      from candidates p
      join contacts ca on ca.community_id = ${c} and ca.id = p.lo
      join contacts cb on cb.community_id = ${c} and cb.id = p.hi
      where ca.anonymized_at is null and cb.anonymized_at is null
        and not exists (select 1 from contact_never_merge m where m.community_id = ${c} and m.contact_id = p.lo and m.other_id = p.hi)
        and not exists (select 1 from contact_never_merge m where m.community_id = ${c} and m.contact_id = p.hi and m.other_id = p.lo)
    ),
    features as (
      select q.*,
        coalesce(q.ka <> '' and q.ka = q.kb, false) as same_name,
        coalesce(q.ka <> '' and q.kb <> '' and q.ka <> q.kb, false) as names_differ,
        coalesce(position(' ' in q.ka) = 0, true) as one_word,
        coalesce(g.n, 2) as n,
        coalesce(q.org_a = q.org_b, false) as same_org,
        coalesce(q.org_a <> q.org_b, false) as different_orgs
      from pairs q
      left join named g on g.id = q.lo and g.k = q.ka
    ),
    evidence as (
      select f.*, oa.primary_domain as org_domain, wd.domain as shared_domain, hd.h as handle, hd.ta, hd.tb,
        st.s as site, al.a1, al.a2, nd.address as named_address
      from features f
      left join organizations oa on oa.community_id = ${c} and oa.id = f.org_a and f.same_org
      left join lateral (
        select o.primary_domain as domain from contact_identities x
        join contact_identities y on y.community_id = ${c} and y.contact_id = f.hi and y.type = 'email'
          and split_part(y.value, '@', 2) = split_part(x.value, '@', 2)
        join organizations o on o.community_id = ${c} and o.primary_domain = split_part(x.value, '@', 2)
        where f.same_name and not f.same_org and not f.different_orgs and x.community_id = ${c} and x.contact_id = f.lo and x.type = 'email'
        limit 1
      ) wd on true
      left join lateral (
        select x.h, x.t as ta, y.t as tb
        from ${handlesOf(c, sql`f.lo`, sql`f.user_a`)} x
        join ${handlesOf(c, sql`f.hi`, sql`f.user_b`)} y on y.h = x.h
        where not f.different_orgs and length(x.h) >= 3
        limit 1
      ) hd on true
      left join lateral (
        select x.s from ${sitesOf(c, sql`f.lo`)} x
        join ${sitesOf(c, sql`f.hi`)} y on y.s = x.s
        where not f.different_orgs and x.s <> '' and not exists (
          select 1 from organizations o where o.community_id = ${c} and o.primary_domain = split_part(x.s, '/', 1)
        )
        limit 1
      ) st on true
      left join lateral (
        select x.display_value as a1, y.display_value as a2 from contact_identities x
        join contact_identities y on y.community_id = ${c} and y.contact_id = f.hi and y.type = 'email'
          and ${aliasKeySql('y.value')} = ${aliasKeySql('x.value')}
        where f.alias and not f.different_orgs and x.community_id = ${c} and x.contact_id = f.lo and x.type = 'email'
        limit 1
      ) al on true
      left join lateral (
        select i.display_value as address from contact_identities i
        where f.same_name and not f.one_word and not f.different_orgs and i.community_id = ${c} and i.contact_id in (f.lo, f.hi) and i.type = 'email'
          and translate(split_part(i.value, '@', 1), '._-', '')
            in (replace(f.ka, ' ', ''), left(f.ka, 1) || split_part(f.ka, ' ', -1))
        limit 1
      ) nd on true
    ),
    weighed as (
      select e.*,
        case when e.same_name then ${lit(WEIGHTS.name)} * least(1.0, 2.0 / e.n) * case when e.one_word then ${lit(WEIGHTS.oneWordName)} else 1 end else 0 end as w_name,
        case when e.same_name and (e.same_org or e.shared_domain is not null) then ${lit(WEIGHTS.workplace)} else 0 end as w_work,
        case when e.handle is null or e.names_differ then 0 when e.same_name then ${lit(WEIGHTS.handle)} else ${lit(WEIGHTS.handleAlone)} end as w_handle,
        case when e.site is null then 0 else ${lit(WEIGHTS.site)} end as w_site,
        case when e.a1 is null or e.names_differ then 0 else ${lit(WEIGHTS.alias)} end as w_alias,
        case when e.same_name and lower(e.city_a) = lower(e.city_b) then ${lit(WEIGHTS.place)} else 0 end as w_place,
        case when e.named_address is null then 0 else ${lit(WEIGHTS.namedAddress)} end as w_address
      from evidence e
    ),
    scored as (
      select w.*,
        round(least(
          1 - (1 - w.w_name) * (1 - w.w_work) * (1 - w.w_handle) * (1 - w.w_site) * (1 - w.w_alias) * (1 - w.w_place) * (1 - w.w_address),
          case when w.different_orgs then ${lit(DIFFERENT_ORGANIZATIONS_CAP)} else 1 end
        )::numeric, 3) as score
      from weighed w
    ),
    suggested as (
      select s.lo, s.hi, s.score, to_jsonb(array_remove(array[
        case
          when s.w_work > 0 then format('both are named "%s" and work at %s', s.name_a, coalesce(s.org_domain, s.shared_domain))
          when s.w_name > 0 then format('both are named "%s"', s.name_a)
            || case when s.n > 2 then format(', a name %s contacts share', s.n) else '' end
            || case when s.one_word then ' (one word only)' else '' end
        end,
        case when s.w_handle > 0 then format('both go by "%s" (%s of one, %s of the other)', s.handle,
          (select ${HANDLE_LABEL} from (select s.ta as t) l), (select ${HANDLE_LABEL} from (select s.tb as t) l)) end,
        case when s.w_site > 0 then format('both profiles name the website %s', s.site) end,
        case when s.w_alias > 0 then format('%s and %s are one mailbox, one with a +tag', s.a1, s.a2) end,
        case when s.w_place > 0 then format('both are in %s', s.city_a) end,
        case when s.w_address > 0 then format('the address %s spells the name', s.named_address) end
      ], null)) as reasons
      from scored s
      where s.score >= ${lit(THRESHOLD)}
    )`;
}

/**
 * Computes the pairs of the community's contacts changed at or after `since` (and of their name groups; all
 * of them without `since`):
 * their open suggestions are deleted, then every pair the rules score at or above the threshold is written,
 * a dismissed pair keeping its status. Two statements, whatever the number of contacts; run them in one
 * transaction. Answers how many pairs were written.
 */
export async function recomputeSuggestions(trx: Executor, communityId: number, since: Date | null, now: Date): Promise<{ removed: number; written: number }> {
  const c = communityId;
  const deleted = await sql`
    with ${affectedCtes(c, since)}
    delete from contact_merge_suggestions s
    where s.community_id = ${c}
      and (s.contact_id in (select id from affected) or s.other_id in (select id from affected))
      -- A dismissed pair stays, unless one of its contacts was erased on request: its reasons name the person.
      and (s.status = 'open' or exists (
        select 1 from contacts x where x.community_id = ${c} and x.id in (s.contact_id, s.other_id) and x.anonymized_at is not null
      ))`.execute(trx);
  const written = await sql`
    with ${affectedCtes(c, since)}, ${scoredPairs(c)}
    insert into contact_merge_suggestions (community_id, contact_id, other_id, score, reasons, computed_at)
    select ${c}, lo, hi, score, reasons, ${now} from suggested
    on conflict (community_id, contact_id, other_id) do update set
      score = excluded.score, reasons = excluded.reasons, computed_at = excluded.computed_at`.execute(trx);
  return { removed: Number(deleted.numAffectedRows ?? 0), written: Number(written.numAffectedRows ?? 0) };
}

/**
 * The communities with contacts changed since their last run (less `marginMs`), and from when to compute
 * each: one pass over contacts per run of the step, which costs the pushes nothing (an index on the time
 * of change would be written by every push).
 */
export async function changedCommunities(db: Executor, marginMs: number, limit: number): Promise<{ communityId: number; since: Date }[]> {
  const { rows } = await sql<{ communityId: number; since: Date }>`
    select c.community_id as "communityId", coalesce(r.computed_through - make_interval(secs => ${marginMs / 1000}), '-infinity'::timestamptz) as since
    from contacts c
    left join contact_merge_suggestion_runs r on r.community_id = c.community_id
    where c.updated_at >= coalesce(r.computed_through - make_interval(secs => ${marginMs / 1000}), '-infinity'::timestamptz)
    group by c.community_id, r.computed_through
    order by c.community_id
    limit ${limit}`.execute(db);
  return rows;
}

export async function markComputed(trx: Executor, communityId: number, through: Date): Promise<void> {
  await sql`
    insert into contact_merge_suggestion_runs (community_id, computed_through) values (${communityId}, ${through})
    on conflict (community_id) do update set computed_through = excluded.computed_through`.execute(trx);
}

export interface SuggestionRow {
  id: number;
  contactId: number;
  otherId: number;
  score: number;
  reasons: string[];
  status: 'open' | 'dismissed';
  computedAt: Date;
  dismissedAt: Date | null;
  dismissedBy: string | null;
}

const ROW = sql`s.id, s.contact_id as "contactId", s.other_id as "otherId", s.score, s.reasons, s.status,
  s.computed_at as "computedAt", s.dismissed_at as "dismissedAt", s.dismissed_by as "dismissedBy"`;

export interface SuggestionFilter {
  communityId: number;
  minScore: number;
  contactId?: number;
}

/**
 * Open suggestions, best first, then by pair (the index contact_merge_suggestions_list), a keyset page at a
 * time: the position is the last row's score (as PostgreSQL prints it, exact) and pair.
 */
export async function pageSuggestions(
  db: Kysely<DB>,
  filter: SuggestionFilter,
  page: { after: CursorPosition | null; limit: number },
): Promise<{ rows: SuggestionRow[]; next: CursorPosition | null }> {
  const { communityId: c } = filter;
  let after = sql`true`;
  if (page.after) {
    const [score, contactId, otherId] = page.after;
    if (page.after.length !== 3 || typeof score !== 'string' || typeof contactId !== 'number' || typeof otherId !== 'number') {
      throw invalidCursor('cursor does not fit this list; start again without it');
    }
    after = sql`(s.score < ${score}::real or (s.score = ${score}::real and (s.contact_id, s.other_id) > (${contactId}, ${otherId})))`;
  }
  const onContact = filter.contactId === undefined ? sql`true` : sql`(s.contact_id = ${filter.contactId} or s.other_id = ${filter.contactId})`;
  const { rows } = await sql<SuggestionRow & { position: string }>`
    select ${ROW}, s.score::text as position from contact_merge_suggestions s
    where s.community_id = ${c} and s.status = 'open' and s.score >= ${filter.minScore}::real and ${onContact} and ${after}
      and not exists (select 1 from contact_never_merge m where m.community_id = ${c} and m.contact_id = s.contact_id and m.other_id = s.other_id)
    order by s.score desc, s.contact_id, s.other_id
    limit ${page.limit + 1}`.execute(db);
  const more = rows.length > page.limit;
  const kept = rows.slice(0, page.limit);
  const last = kept.at(-1);
  return {
    rows: kept.map(({ position: _position, ...row }) => row),
    next: more && last ? [last.position, last.contactId, last.otherId] : null,
  };
}

export async function findSuggestion(db: Executor, communityId: number, id: number): Promise<SuggestionRow | undefined> {
  const { rows } = await sql<SuggestionRow>`select ${ROW} from contact_merge_suggestions s where s.community_id = ${communityId} and s.id = ${id}`.execute(db);
  return rows[0];
}

/** Marks a suggestion dismissed (once: a dismissed one keeps who dismissed it first); undefined when the community has none of that ID. */
export async function dismissSuggestion(trx: Executor, communityId: number, id: number, by: string, now: Date): Promise<SuggestionRow | undefined> {
  await sql`
    update contact_merge_suggestions set status = 'dismissed', dismissed_at = ${now}, dismissed_by = ${by}
    where community_id = ${communityId} and id = ${id} and status = 'open'`.execute(trx);
  return findSuggestion(trx, communityId, id);
}

export interface SideContact {
  id: number;
  name: string;
  fullName: string | null;
  username: string | null;
  primaryEmail: string | null;
  avatarUrl: string | null;
  title: string | null;
  city: string | null;
  country: string | null;
  organizationId: number | null;
  organizationName: string | null;
  organizationDomain: string | null;
  createdAt: Date;
  identities: { type: string; value: string }[];
}

/** What a side-by-side view shows of each contact of a page's pairs: one statement for any number. */
export async function sideContacts(db: Executor, communityId: number, ids: number[]): Promise<Map<number, SideContact>> {
  if (ids.length === 0) return new Map();
  const { rows } = await sql<SideContact>`
    select c.id, c.name, c.full_name as "fullName", c.username, c.primary_email as "primaryEmail", c.avatar_url as "avatarUrl",
      c.title, c.city, c.country, c.organization_id as "organizationId", o.name as "organizationName",
      o.primary_domain as "organizationDomain", c.created_at as "createdAt",
      coalesce((
        select jsonb_agg(jsonb_build_object('type', i.type, 'value', i.display_value) order by i.type, i.display_value)
        from contact_identities i where i.community_id = c.community_id and i.contact_id = c.id
      ), '[]'::jsonb) as identities
    from contacts c
    left join organizations o on o.community_id = c.community_id and o.id = c.organization_id
    where c.community_id = ${communityId} and c.id = any(${ids}::bigint[])`.execute(db);
  return new Map(rows.map((row) => [row.id, row]));
}
