import type { Static } from 'typebox';
import { HearthError } from '../../core/errors.ts';
import { unknownFieldWarnings } from '../../core/core-bodies.ts';
import type { Executor } from '../../core/executor.ts';
import type { Writer } from '../../core/writer.ts';
import { parseActivityTimestamp, readText, type TextReading } from '../activities/index.ts';
import { customFieldTx } from '../custom-fields/index.ts';
import type { PushOrigin } from '../identity/index.ts';
import { interpretLocation, type Place } from '../locations/index.ts';
import { isPersonalMailDomain, registrableDomain } from '../organizations/index.ts';
import type { ActivityPushBody, UserPushBody } from './ingestion.schemas.ts';
import { API_USER_FIELDS, httpUrl, readPushedPerson, type ApiUser, type PushedPerson } from './pushed-person.ts';

/**
 * One push, checked and read before anything is stored: what may refuse it (with a 400 naming why) has
 * been decided here, and the CPU work of reading it (names, identities, the place, text, sentiment, topics)
 * is done outside any transaction. Storing it cannot refuse it any more, so pushes can be stored together.
 */
export interface PushItem {
  writer: Writer;
  origin: PushOrigin;
  person: PushedPerson;
  /** Where the person lives, read from the push by the gazetteer (null: the push says nothing usable). */
  place: Place | null;
  /**
   * The organization domain the push implies (docs/behaviour.md, Ingestion): `companyDomain`, else the email's
   * domain unless a free or disposable mail provider; or null.
   */
  domain: string | null;
  customFields: { fieldId: number; value: unknown }[];
  tags: ApiUser['tags'];
  activity: PushedActivity | null;
  /** What was dropped or ignored while reading the push. */
  warnings: string[];
}

/**
 * A push read but for its activity's text, which the text reader reads meanwhile on a thread of its own:
 * a batch's texts are read while its other pushes are. `textRead` waits for it.
 */
export type ReadPush = Omit<PushItem, 'activity'> & {
  activity: (Omit<PushedActivity, 'sentiment' | 'topics'> & { reading: Promise<TextReading> }) | null;
};

/** The push, once its activity's text is read. */
export async function textRead(push: ReadPush): Promise<PushItem> {
  if (!push.activity) return { ...push, activity: null };
  const { reading, ...activity } = push.activity;
  return { ...push, activity: { ...activity, ...(await reading) } };
}

export interface PushedActivity {
  activityType: string;
  externalId: string;
  time: Date;
  title: string | null;
  content: string | null;
  contentType: 'text' | 'markdown' | null;
  url: string | null;
  sentiment: string | null;
  topics: string[];
  parent: { externalId: string; activityType: string | null } | null;
  subSource: string | null;
  tags: ApiUser['tags'];
}

const ACTIVITY_FIELDS = [
  'destinationSourceId',
  'id',
  'activityType',
  'user',
  'activityTitle',
  'content',
  'timestamp',
  'url',
  'tags',
  'parentActivity',
  'subSource',
];

function invalid(message: string): HearthError {
  return new HearthError('invalid_parameters', message, { coreReason: 'invalid-request-body' });
}

/** A user push (or the user of an activity push, under `path`), read. */
async function readUser(db: Executor, writer: Writer, origin: PushOrigin, user: ApiUser, path: string) {
  const person = readPushedPerson(user);
  if (!person.externalId) throw invalid(`${path}id must not be empty`);
  person.warnings = person.warnings.map((warning) => `${path}${warning}`);
  const customFields = user.customFields?.length
    ? await customFieldTx.checkCustomFieldWrites(
        db,
        { communityId: origin.communityId, entityType: 'contact', sourceId: origin.sourceId },
        user.customFields.map((entry, index) => ({ field: entry.id, value: entry.value, path: `${path}customFields[${index}]` })),
      )
    : [];
  const emailIdentity = person.identities.find((identity) => identity.type === 'email');
  const emailDomain = emailIdentity ? registrableDomain(emailIdentity.value.split('@')[1]) : null;
  return {
    writer,
    origin,
    person,
    place: interpretLocation(person.location),
    domain: person.companyDomain ?? (emailDomain && !isPersonalMailDomain(emailDomain) ? emailDomain : null),
    customFields,
    tags: user.tags,
  };
}

export async function readUserPush(db: Executor, writer: Writer, origin: PushOrigin, body: Static<typeof UserPushBody>): Promise<ReadPush> {
  const user = await readUser(db, writer, origin, body as ApiUser, '');
  const warnings = [...unknownFieldWarnings(body, [...API_USER_FIELDS, 'destinationSourceId']), ...user.person.warnings];
  return { ...user, activity: null, warnings };
}

/** An activity push, read; `accepts` says whether the community knows the activity type. */
export async function readActivityPush(
  db: Executor,
  writer: Writer,
  origin: PushOrigin,
  body: Static<typeof ActivityPushBody>,
  accepts: (activityType: string) => boolean | Promise<boolean>,
): Promise<ReadPush> {
  if (!(await accepts(body.activityType))) {
    throw new HearthError('invalid_activity_type', `unknown activityType "${body.activityType}"; GET /community/v1/activityTypes lists the accepted ones`, {
      coreReason: 'invalid-request-body',
    });
  }
  const time = parseActivityTimestamp(body.timestamp, origin.now);
  if (!time.ok) throw invalid(`timestamp: ${time.reason}`);
  const externalId = String(body.id).trim();
  if (!externalId) throw invalid('id must not be empty');
  const user = await readUser(db, writer, origin, body.user as ApiUser, 'user.');
  const warnings = [
    ...unknownFieldWarnings(body, ACTIVITY_FIELDS),
    ...unknownFieldWarnings(body.user, API_USER_FIELDS, 'user.'),
    ...user.person.warnings,
    ...(time.warning ? [`timestamp ${time.warning}`] : []),
  ];
  const url = httpUrl('url', body.url?.trim() || null, warnings);
  const content = textContent(body.content);
  const title = textContent(body.activityTitle);
  const subSource = typeof body.subSource === 'string' ? body.subSource : (body.subSource?.name ?? null);
  return {
    ...user,
    warnings,
    activity: {
      activityType: body.activityType,
      externalId,
      time: time.date,
      title: title?.value ?? null,
      content: content?.value ?? null,
      contentType: content?.type ?? null,
      url,
      reading: readText({ title, content }),
      parent: body.parentActivity ? { externalId: String(body.parentActivity.id), activityType: body.parentActivity.activityType ?? null } : null,
      subSource: subSource?.trim() || null,
      tags: body.tags as ApiUser['tags'],
    },
  };
}

function textContent(given: Static<typeof ActivityPushBody>['content']): { type: 'text' | 'markdown'; value: string } | null {
  if (given === undefined || given === null) return null;
  if (typeof given === 'string') return given.trim() ? { type: 'text', value: given } : null;
  if (!given.value?.trim()) return null;
  return { type: given.type === 'markdown' ? 'markdown' : 'text', value: given.value };
}
