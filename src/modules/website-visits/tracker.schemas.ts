import Type from 'typebox';
import { component } from '../../http/components.ts';
import { v2Definitions, v2Item } from '../../http/schemas.ts';

export const Tracker = component('WebsiteTracker', Type.Object({
  sourceId: Type.String({ description: 'sig_N: the source whose visits the key records' }),
  key: Type.String({ description: 'The public key (pk_…): written into the site\'s pages; it can only record page views and identify calls into this source' }),
  allowedOrigins: Type.Array(Type.String(), { description: 'Origins whose pages may send; empty: any origin' }),
  createdAt: Type.String({ format: 'date-time', description: 'When this key was made (enabled or rotated)' }),
  snippet: Type.String({ description: 'The HTML to put in the site\'s pages' }),
}));

export const TrackerResponse = v2Item(Tracker);
export const TrackersResponse = v2Definitions(Tracker);

export const SourceParams = Type.Object({ id: Type.String({ description: 'The source: sig_N or its number' }) });

export const TrackerSettingsBody = Type.Object(
  {
    allowedOrigins: Type.Optional(
      Type.Array(Type.String({ maxLength: 300 }), {
        maxItems: 50,
        description: 'Origins (https://www.example.com) whose pages may send to the tracker; [] lets any origin. Left out: unchanged (any origin for a new tracker).',
      }),
    ),
  },
  { additionalProperties: false },
);

const ANONYMOUS_ID = Type.String({ minLength: 1, maxLength: 200, description: 'The browser\'s anonymous ID, kept by the script in the site\'s localStorage (or a first-party cookie)' });

export const KeyParams = Type.Object({ key: Type.String({ description: 'The source\'s public tracker key (pk_…)' }) });
export const PreflightParams = Type.Object({
  key: KeyParams.properties.key,
  event: Type.Enum(['pageview', 'identify'], { description: 'The route the browser is about to call' }),
});

export const PageViewBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2000, description: 'The page (http or https); the script sends it without its #fragment' }),
    anonymousId: ANONYMOUS_ID,
  },
  { additionalProperties: false },
);

export const IdentifyBody = Type.Object(
  {
    anonymousId: ANONYMOUS_ID,
    email: Type.String({ minLength: 1, maxLength: 320, description: 'The visitor\'s email address, as the site knows it' }),
  },
  { additionalProperties: false },
);

export const TrackerAnswer = Type.Object({
  status: Type.Enum(['accepted', 'ignored'], { description: '`ignored`: the browser sent Do Not Track or Global Privacy Control, and nothing was stored' }),
});
