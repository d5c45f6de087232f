import { formatId, parseId } from '../../src/core/ids.ts';
import { cliActor, cliWriter, type Writer } from '../../src/core/writer.ts';
import type { Engine } from '../../src/db/database.ts';
import type { Services } from '../../src/services.ts';
import { createTestApp, type TestApp, type TestAppOptions } from './test-app.ts';

/**
 * Factories: a record made the way the running service makes it (through its services, so with its
 * identities, source profile, audit entry and scoring marks), with defaults a test need not spell out and
 * every field overridable. Each answers the record's API ID (`c_3`) and its database key (3), for the
 * tests that look at the rows. A test that needs a row no service writes (a state the service cannot reach,
 * many rows at once) inserts it itself; test/helpers/seed.ts has the definitions made as bare rows.
 *
 * Everything is made in the test app's community and "API" source unless `communityId` / `sourceId` say
 * otherwise; `newCommunity` makes another with a source of its own.
 */

type UserPush = Parameters<Services['ingestion']['pushUser']>[2];
type ActivityPush = Parameters<Services['ingestion']['pushActivity']>[2];
type OrganizationUpsert = Parameters<Services['organizationUpserts']['upsertInSource']>[2];
type NewSegment = Parameters<Services['segmentWrites']['create']>[1];
type NewCustomField = Parameters<Services['customFieldAdmin']['create']>[1];
type NewLeadScore = Parameters<Services['leadScoreAdmin']['create']>[1];
type NewObjectType = Parameters<Services['objectTypeAdmin']['create']>[1];
type NewTag = Parameters<Services['tags']['create']>[1];

/** Where a record goes: the test app's community and source unless given. */
export interface Where {
  communityId?: number;
  sourceId?: number;
}

/** A made record: its API ID and its database key. */
export interface Made {
  id: string;
  key: number;
}

export interface Factories {
  /** Another community, with an "API" source and an all-scope token of its admin. */
  newCommunity(name?: string): Promise<{ communityId: number; sourceId: number; token: string }>;
  /** A person pushed into a source (POST /community/v1/source/{id}/user): by default `person-N`, "Person N", person-N@example.org. */
  newContact(fields?: Partial<UserPush> & Where): Promise<Made & { externalId: string }>;
  /** An activity pushed into a source: by default a post (made_post_topic) by a new person, now. */
  newActivity(fields?: Partial<ActivityPush> & Where): Promise<Made & { externalId: string; contact: Made }>;
  /** An organization upserted by its domain into a source: by default `example-org-N.com`. */
  newOrganization(fields?: Partial<OrganizationUpsert> & Where): Promise<Made & { created: boolean }>;
  /** A segment (POST /api/v2/segments): by default a contact segment "Segment N". */
  newSegment(fields?: Partial<NewSegment> & Pick<Where, 'communityId'>): Promise<Made & { name: string }>;
  /** A token of the community's admin (as `hearth token create`): by default every scope. */
  newToken(fields?: { scopes?: string[]; name?: string; expiresInSeconds?: number } & Pick<Where, 'communityId'>): Promise<{ token: string; jti: string }>;
  /** A custom field (POST /api/v2/admin/custom-fields): by default a contact string field "Field N". */
  newCustomField(fields?: Partial<NewCustomField> & Pick<Where, 'communityId'>): Promise<Made>;
  /** A lead score (POST /api/v2/admin/lead-scores): by default a contact score "Score N" weighing posts by 1. */
  newLeadScore(fields?: Partial<NewLeadScore> & Pick<Where, 'communityId'>): Promise<Made>;
  /** An object type (POST /api/v2/admin/object-types): by default "Type N", with no associations. */
  newObjectType(fields?: Partial<NewObjectType> & Pick<Where, 'communityId'>): Promise<Made>;
  /** A tag: by default "Tag N", for members (contacts). */
  newTag(fields?: Partial<NewTag> & Pick<Where, 'communityId'>): Promise<Made>;
}

/** A test app with its factories: `ctx.newContact()`, `ctx.get(...)`. */
export type TestContext = TestApp & Factories;

/** The whole app on a fresh database of the engine (createTestApp), with factories. */
export async function createTestContext(engine: Engine, options: TestAppOptions = {}): Promise<TestContext> {
  const t = await createTestApp(engine, options);
  return Object.assign(t, factoriesFor(t));
}

/** Factories for a test app made otherwise. */
export function factoriesFor(t: TestApp): Factories {
  const { services } = t;
  let n = 0;
  const next = () => ++n;
  const writerOf = (where: Where): Writer => cliWriter(where.communityId ?? t.communityId);
  /** The community's source for pushes: the given one, the test app's, or the one newCommunity made. */
  const sourcesOf = new Map<number, number>([[t.communityId, t.sourceId]]);
  const sourceOf = (where: Where) => {
    const sourceId = where.sourceId ?? sourcesOf.get(where.communityId ?? t.communityId);
    if (sourceId === undefined) throw new Error(`no source known for community ${where.communityId}: give sourceId`);
    return sourceId;
  };
  const made = (entity: Parameters<typeof parseId>[0], id: string): Made => ({ id, key: parseId(entity, id) });

  return {
    async newCommunity(name = `Community ${next()}`) {
      const { communityId } = await services.communities.create(name, cliActor());
      const writer = cliWriter(communityId);
      const source = await services.sources.create(writer, { name: 'API' });
      sourcesOf.set(communityId, source.id);
      const issued = await services.tokens.issue(writer, { scopes: ['read', 'write', 'admin'], appUserId: await services.communities.adminOf(communityId) });
      return { communityId, sourceId: source.id, token: issued.token };
    },

    async newContact({ communityId, sourceId, ...fields } = {}) {
      const i = next();
      const body: UserPush = { id: `person-${i}`, fullName: `Person ${i}`, email: `person-${i}@example.org`, ...fields };
      const accepted = await services.ingestion.pushUser(writerOf({ communityId }), sourceOf({ communityId, sourceId }), body);
      if (!accepted.contactId) throw new Error(`the push of ${body.id} stored nobody (a suppressed person?)`);
      return { ...made('contact', accepted.contactId), externalId: String(body.id) };
    },

    async newActivity({ communityId, sourceId, ...fields } = {}) {
      const i = next();
      const body: ActivityPush = {
        id: `activity-${i}`,
        activityType: 'made_post_topic',
        user: { id: `author-${i}`, fullName: `Author ${i}`, email: `author-${i}@example.org` },
        ...fields,
      };
      const accepted = await services.ingestion.pushActivity(writerOf({ communityId }), sourceOf({ communityId, sourceId }), body);
      if (!accepted.contactId || !accepted.activityId) throw new Error(`the push of activity ${body.id} stored nothing: ${accepted.warnings.join('; ')}`);
      return { ...made('activity', accepted.activityId), externalId: String(body.id), contact: made('contact', accepted.contactId) };
    },

    async newOrganization({ communityId, sourceId, ...fields } = {}) {
      const body: OrganizationUpsert = { domain: `example-org-${next()}.com`, ...fields };
      const upserted = await services.organizationUpserts.upsertInSource(writerOf({ communityId }), sourceOf({ communityId, sourceId }), body);
      return { ...made('organization', upserted.organizationId), created: upserted.created };
    },

    async newSegment({ communityId, ...fields } = {}) {
      const segment = await services.segmentWrites.create(writerOf({ communityId }), { name: `Segment ${next()}`, ...fields });
      return { ...made('segment', segment.id), name: segment.name };
    },

    async newToken({ communityId = t.communityId, scopes = ['read', 'write', 'admin'], ...fields } = {}) {
      const issued = await services.tokens.issue(cliWriter(communityId), { scopes, appUserId: await services.communities.adminOf(communityId), ...fields });
      return { token: issued.token, jti: issued.jti };
    },

    async newCustomField({ communityId, ...fields } = {}) {
      const field = await services.customFieldAdmin.create(writerOf({ communityId }), {
        name: `Field ${next()}`,
        entityTypes: ['contact'],
        valueType: 'string',
        ...fields,
      });
      return made('custom_field', field.id);
    },

    async newLeadScore({ communityId, ...fields } = {}) {
      const score = await services.leadScoreAdmin.create(writerOf({ communityId }), {
        name: `Score ${next()}`,
        entityType: 'contact',
        weights: [{ activityType: 'made_post_topic', weight: 1 }],
        ...fields,
      });
      return made('lead_score', score.id);
    },

    async newObjectType({ communityId, ...fields } = {}) {
      const type = await services.objectTypeAdmin.create(writerOf({ communityId }), { name: `Type ${next()}`, ...fields });
      return made('object_type', type.id);
    },

    async newTag({ communityId, ...fields } = {}) {
      const tag = await services.tags.create(writerOf({ communityId }), { name: `Tag ${next()}`, entityTypes: ['member'], ...fields });
      return { id: formatId('tag', tag.id), key: tag.id };
    },
  };
}
