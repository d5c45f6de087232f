import Type from 'typebox';
import { Nullable, v2Item } from '../../http/schemas.ts';
import { component } from '../../http/components.ts';
import { FEED_KINDS } from './feed-formats.ts';

export const Feed = component(
  'Feed',
  Type.Object({
    id: Type.String({ description: 'feed_N' }),
    organizationId: Nullable(Type.String({ description: 'o_N' })),
    objectId: Nullable(Type.String({ description: 'co_N' })),
    kind: Type.Enum([...FEED_KINDS]),
    url: Type.String(),
    intervalMinutes: Type.Integer(),
    lastFetchedAt: Nullable(Type.String({ format: 'date-time' })),
    lastStatus: Nullable(Type.String({ description: '`ok: …`, `not modified`, or what went wrong' })),
    failures: Type.Integer({ description: 'Failed fetches in a row' }),
    nextFetchAt: Type.String({ format: 'date-time' }),
    createdAt: Type.String({ format: 'date-time' }),
  }),
);

export const NewFeedBody = Type.Object(
  {
    organizationId: Type.Optional(Type.String({ description: 'o_N. Exactly one of organizationId and objectId.' })),
    objectId: Type.Optional(Type.String({ description: 'co_N. Exactly one of organizationId and objectId.' })),
    kind: Type.Enum([...FEED_KINDS], {
      description:
        '`greenhouse` (https://boards-api.greenhouse.io/v1/boards/{board}/jobs?content=true), `lever` (https://api.lever.co/v0/postings/{company}?mode=json), `ashby` (https://api.ashbyhq.com/posting-api/job-board/{board}): job openings; `rss`: an RSS or Atom feed of news.',
    }),
    url: Type.String({ minLength: 1, maxLength: 2000 }),
    intervalMinutes: Type.Optional(Type.Integer({ minimum: 5, maximum: 10_080, description: 'How often to fetch (default 360).' })),
  },
  { additionalProperties: false },
);

export const FeedParams = Type.Object({ id: Type.String({ description: 'feed_N' }) });
export const FeedResponse = v2Item(Feed);
export const FeedsResponse = v2Item(Type.Array(Feed));
export const FeedFetchResponse = v2Item(Type.Object({ jobId: Type.Integer({ description: 'The fetch job (`hearth jobs`)' }) }));
