import Type from 'typebox';
import { component } from '../../http/components.ts';
import { Nullable, v2Definitions, v2Item } from '../../http/schemas.ts';

export const Tracker = component(
  'WebsiteTracker',
  Type.Object({
    sourceId: Type.String({ description: 'sig_N: the source whose visits the key records' }),
    key: Type.String({
      description: "The public key (pk_…): written into the site's pages; it can only record page views and identify calls into this source",
    }),
    allowedOrigins: Type.Array(Type.String(), {
      description: 'Origins whose pages may send, and the only origins of the page URLs recorded; empty: the tracker records nothing until an admin names them',
    }),
    allowUnverifiedIdentify: Type.Boolean({
      description: "Whether identify calls without a valid signature link a browser's visits to a contact (off: they are kept apart, linked to nothing)",
    }),
    identifySecret: Type.Optional(
      Type.String({
        description:
          "tsk_…: the secret the site's backend signs identified addresses with (hex HMAC-SHA256 of the lower-cased address). " +
          'Only in the answer that made it (enabling, rotating the key or the secret); never shown again.',
      }),
    ),
    identifySecretCreatedAt: Nullable(
      Type.String({ format: 'date-time', description: 'When the identify secret was made; null: the tracker has none yet (rotate its secret)' }),
    ),
    createdAt: Type.String({ format: 'date-time', description: 'When this key was made (enabled or rotated)' }),
    snippet: Type.String({ description: "The HTML to put in the site's pages" }),
  }),
);

export const TrackerResponse = v2Item(Tracker);
export const TrackersResponse = v2Definitions(Tracker);

export const SourceParams = Type.Object({ id: Type.String({ description: 'The source: sig_N or its number' }) });

export const TrackerSettingsBody = Type.Object(
  {
    allowedOrigins: Type.Optional(
      Type.Array(Type.String({ maxLength: 300 }), {
        maxItems: 50,
        description:
          'Origins (https://www.example.com) whose pages may send to the tracker and whose page URLs it records. ' +
          '[]: none, the tracker refuses every page view and identify call. Left out: unchanged ([] for a new tracker).',
      }),
    ),
    allowUnverifiedIdentify: Type.Optional(
      Type.Boolean({
        description:
          'Let identify calls without a valid signature link visits to contacts, as any page could then claim any address. Left out: unchanged (false for a new tracker).',
      }),
    ),
  },
  { additionalProperties: false },
);

const ANONYMOUS_ID = Type.String({
  minLength: 1,
  maxLength: 200,
  description: "The browser's anonymous ID, kept by the script in the site's localStorage (or a first-party cookie)",
});

export const KeyParams = Type.Object({ key: Type.String({ description: "The source's public tracker key (pk_…)" }) });
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
    email: Type.String({ minLength: 1, maxLength: 320, description: "The visitor's email address, as the site knows it" }),
    signature: Type.Optional(
      Type.String({
        pattern: '^[0-9a-fA-F]{64}$',
        description: "Hex HMAC-SHA256 of the address (trimmed, lower-cased) under the tracker's identify secret, computed by the site's backend",
      }),
    ),
  },
  { additionalProperties: false },
);

export const TrackerAnswer = Type.Object({
  status: Type.Enum(['accepted', 'ignored'], { description: '`ignored`: the browser sent Do Not Track or Global Privacy Control, and nothing was stored' }),
});
