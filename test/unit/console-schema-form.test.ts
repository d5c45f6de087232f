import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { formOf, humanize, initialValues, valuesToBody, withoutFields, type JsonSchema } from '../../console/src/schema-values.ts';
import { compileBodyValidator } from '../../src/core/validation.ts';
import { SlackSecretsSchema, SlackSettingsSchema } from '../../src/modules/connectors/slack/slack.schemas.ts';

/**
 * The console's forms for connector kinds without a form written for them: fields from the kind's published
 * schemas, and the fields' text back into the JSON the API takes. The schemas travel as JSON (as
 * `GET /api/v2/admin/connector-kinds` answers them), and what the form makes is checked by the server's own
 * body validator.
 */

const asPublished = (schema: unknown) => JSON.parse(JSON.stringify(schema)) as JsonSchema;
const acceptedBy = (schema: unknown, value: unknown) => compileBodyValidator(schema as object)(value);

/** Every kind of field a kind's schema may hold, with alternatives as the polled platforms write them. */
const Polled = Type.Union(
  [
    Type.Object(
      {
        keywords: Type.Array(Type.String({ minLength: 1, pattern: '\\S', description: 'A word, e.g. "hearth"' }), {
          minItems: 1,
          description: 'Searched for',
        }),
        domains: Type.Optional(Type.Array(Type.String({ pattern: '^[a-z.]+$' }), { minItems: 1 })),
        backfillDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 7300, description: 'How far back' })),
        ratio: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
        profiles: Type.Optional(Type.Boolean({ description: 'Read profiles (default true)' })),
        order: Type.Optional(Type.Union([Type.Literal('new'), Type.Literal('top')])),
        homepage: Type.Optional(Type.String({ format: 'uri' })),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        domains: Type.Array(Type.String({ pattern: '^[a-z.]+$' }), { minItems: 1 }),
        keywords: Type.Optional(Type.Array(Type.String({ minLength: 1, pattern: '\\S' }), { minItems: 1 })),
        backfillDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 7300 })),
        ratio: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
        profiles: Type.Optional(Type.Boolean()),
        order: Type.Optional(Type.Union([Type.Literal('new'), Type.Literal('top')])),
        homepage: Type.Optional(Type.String({ format: 'uri' })),
      },
      { additionalProperties: false },
    ),
  ],
  { description: '`keywords`, `domains`, or both' },
);

describe("the console's forms made from a kind's schemas", () => {
  it('labels fields by their names, with the usual acronyms', () => {
    expect(humanize('botToken')).toBe('Bot token');
    expect(humanize('apiUrl')).toBe('API URL');
    expect(humanize('guildId')).toBe('Guild ID');
    expect(humanize('webhookSecret')).toBe('Webhook secret');
    expect(humanize('commentsWindowDays')).toBe('Comments window days');
    expect(humanize('client_id')).toBe('Client ID');
  });

  it("makes Slack's fields, and the body Slack's schemas accept", () => {
    const settings = formOf(asPublished(SlackSettingsSchema));
    const secrets = formOf(asPublished(SlackSecretsSchema));
    expect(settings.fields.map((field) => [field.name, field.label, field.widget, field.required])).toEqual([
      ['channels', 'Channels', 'lines', true],
      ['apiUrl', 'API URL', 'text', false],
    ]);
    expect(settings.fields[0]!.hint).toContain('The channels to follow, by ID');
    expect(secrets.fields.map((field) => [field.name, field.label, field.required])).toEqual([
      ['botToken', 'Bot token', true],
      ['webhookSecret', 'Webhook secret', true],
    ]);
    expect(secrets.fields[1]!.hint).toContain('Signing Secret');

    // One per line or by commas, trimmed; an empty optional field is left out.
    const body = valuesToBody(settings, { channels: ' C0GENERAL\n\nC0RANDOM, G0PRIVATE \n', apiUrl: '  ' });
    expect(body).toEqual({ ok: true, value: { channels: ['C0GENERAL', 'C0RANDOM', 'G0PRIVATE'] } });
    expect(acceptedBy(SlackSettingsSchema, body.ok && body.value)).toBe(true);
    const secretsBody = valuesToBody(secrets, { botToken: ' xoxb-1234-5678-abcdef ', webhookSecret: 'slack-signing-secret-0123' });
    expect(secretsBody).toEqual({ ok: true, value: { botToken: 'xoxb-1234-5678-abcdef', webhookSecret: 'slack-signing-secret-0123' } });
    expect(acceptedBy(SlackSecretsSchema, secretsBody.ok && secretsBody.value)).toBe(true);
  });

  it('names the field that is wrong before anything is sent', () => {
    const settings = formOf(asPublished(SlackSettingsSchema));
    const secrets = formOf(asPublished(SlackSecretsSchema));
    expect(valuesToBody(settings, { channels: '\n , \n' })).toEqual({ ok: false, field: 'channels', message: '“Channels” is required.' });
    expect(valuesToBody(settings, { channels: 'C0GENERAL\ngeneral' })).toMatchObject({
      ok: false,
      field: 'channels',
      message: expect.stringMatching(/^“Channels” has “general”, which does not have the expected form \(A channel ID/),
    });
    expect(valuesToBody(secrets, { botToken: 'xoxp-user-token', webhookSecret: 'slack-signing-secret-0123' })).toMatchObject({ ok: false, field: 'botToken' });
    expect(valuesToBody(secrets, { botToken: 'xoxb-1234-5678-abcdef', webhookSecret: 'short' })).toEqual({
      ok: false,
      field: 'webhookSecret',
      message: '“Webhook secret” must be at least 16 characters long.',
    });
  });

  it('takes only the secrets given when changing them, every field optional', () => {
    const secrets = formOf(asPublished(SlackSecretsSchema));
    expect(valuesToBody(secrets, { botToken: 'xoxb-rotated-token-1', webhookSecret: '' }, { partial: true })).toEqual({
      ok: true,
      value: { botToken: 'xoxb-rotated-token-1' },
    });
    expect(valuesToBody(secrets, {}, { partial: true })).toEqual({ ok: true, value: {} });
    // Given, a value must still be right.
    expect(valuesToBody(secrets, { botToken: 'nope' }, { partial: true })).toMatchObject({ ok: false, field: 'botToken' });
    // The webhook secret the page makes itself is not a field.
    expect(withoutFields(secrets, ['webhookSecret']).fields.map((field) => field.name)).toEqual(['botToken']);
  });

  it('merges alternatives, parses numbers, yes/no and choices, and asks for one alternative to be complete', () => {
    const form = formOf(asPublished(Polled));
    expect(form.fields.map((field) => [field.name, field.widget, field.required])).toEqual([
      ['keywords', 'lines', false],
      ['domains', 'lines', false],
      ['backfillDays', 'integer', false],
      ['ratio', 'number', false],
      ['profiles', 'boolean', false],
      ['order', 'choice', false],
      ['homepage', 'url', false],
    ]);
    expect(form.fields.find((field) => field.name === 'order')!.options).toEqual(['new', 'top']);
    expect(form.note).toBe('“Keywords”, “Domains”, or both');
    // An optional yes/no starts unset: leaving it so keeps the platform's default.
    expect(initialValues(form)).toEqual({ keywords: '', domains: '', backfillDays: '', ratio: '', profiles: '', order: '', homepage: '' });

    expect(valuesToBody(form, initialValues(form))).toEqual({ ok: false, field: 'keywords', message: 'Give “Keywords”, or “Domains”.' });
    const body = valuesToBody(form, {
      domains: 'example.org',
      backfillDays: ' 30 ',
      ratio: '0.5',
      profiles: 'false',
      order: 'top',
      homepage: 'https://example.org/',
    });
    expect(body).toEqual({
      ok: true,
      value: { domains: ['example.org'], backfillDays: 30, ratio: 0.5, profiles: false, order: 'top', homepage: 'https://example.org/' },
    });
    expect(acceptedBy(Polled, body.ok && body.value)).toBe(true);

    expect(valuesToBody(form, { keywords: 'hearth', backfillDays: 'a year' })).toEqual({
      ok: false,
      field: 'backfillDays',
      message: '“Backfill days” must be a whole number.',
    });
    expect(valuesToBody(form, { keywords: 'hearth', backfillDays: '0' })).toMatchObject({
      field: 'backfillDays',
      message: '“Backfill days” must be at least 1.',
    });
    expect(valuesToBody(form, { keywords: 'hearth', ratio: 'half' })).toMatchObject({ field: 'ratio', message: '“Ratio” must be a number.' });
    expect(valuesToBody(form, { keywords: 'hearth', homepage: 'example.org' })).toMatchObject({ field: 'homepage', message: '“Homepage” is not a URL.' });
  });

  it("sends a number or its digits as the schema's alternatives allow, and edits a schema it cannot split as JSON", () => {
    const secrets = formOf({
      type: 'object',
      required: ['appId'],
      properties: {
        appId: {
          anyOf: [
            { type: 'integer', minimum: 1 },
            { type: 'string', pattern: '^[0-9]+$' },
          ],
        },
      },
    });
    expect(secrets.fields[0]!.widget).toBe('text');
    expect(valuesToBody(secrets, { appId: '12345' })).toEqual({ ok: true, value: { appId: 12345 } });

    const whole = formOf({ type: 'array', items: { type: 'object' } });
    expect(whole.fields.map((field) => [field.name, field.widget])).toEqual([['', 'json']]);
    expect(valuesToBody(formOf({ anyOf: [{ type: 'string' }, { type: 'integer' }] }), { '': '{"a": 1}' })).toEqual({ ok: true, value: { a: 1 } });
    expect(valuesToBody(whole, { '': '[1' })).toMatchObject({ ok: false, message: '“Value (JSON)” is not JSON.' });
  });

  it('starts a required yes/no and a required choice at their defaults', () => {
    const form = formOf(
      asPublished(
        Type.Object({
          enabled: Type.Boolean(),
          verbose: Type.Optional(Type.Boolean({ default: true })),
          mode: Type.Union([Type.Literal('fast'), Type.Literal('full')], { default: 'full' }),
          level: Type.Enum(['low', 'high']),
        }),
      ),
    );
    expect(initialValues(form)).toEqual({ enabled: 'false', verbose: 'true', mode: 'full', level: 'low' });
    expect(valuesToBody(form, initialValues(form))).toEqual({ ok: true, value: { enabled: false, verbose: true, mode: 'full', level: 'low' } });
  });
});
