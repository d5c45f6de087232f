/**
 * The keys merge suggestions match on, in TypeScript and as SQL. The SQL is what the database compares and
 * what its indexes hold (migration 0043 writes the same expressions out); the TypeScript says the same in a
 * form tests can read, and names what a reason quotes.
 */
import { sql, type RawBuilder } from 'kysely';

/** Letters with accents, and the plain letter each one stands for (same length; both cases). */
export const ACCENTED = 'ÀÁÂÃÄÅàáâãäåĀāĂăĄąÇçĆćČčĎďÈÉÊËèéêëĒēĖėĘęĚěÌÍÎÏìíîïĪīĮįŁłÑñŃńŇňÒÓÔÕÖØòóôõöøŌōŐőŔŕŘřŚśŠšŞşŤťÙÚÛÜùúûüŪūŮůŰűÝýÿŹźŻżŽž';
export const PLAIN = 'AAAAAAaaaaaaAaAaAaCcCcCcDdEEEEeeeeEeEeEeEeIIIIiiiiIiIiLlNnNnNnOOOOOOooooooOoOoRrRrSsSsSsTtUUUUuuuuUuUuUuYyyZzZzZz';

const PLAIN_OF = new Map([...ACCENTED].map((letter, index) => [letter, PLAIN[index]!]));

/**
 * A full name as the matching compares it: accents taken off, lower case, each run of spaces and ASCII
 * punctuation one space, trimmed. `"  José  O'Brien-Núñez "` is `"jose o brien nunez"`. Letters of other
 * scripts are kept as they are.
 */
export function nameKey(fullName: string): string {
  const plain = [...fullName].map((letter) => PLAIN_OF.get(letter) ?? letter).join('');
  return plain
    .toLowerCase()
    .replace(/[\t\n\v\f\r !-/:-@[-`{-~]+/g, ' ')
    .trim();
}

/** `nameKey` in SQL, over a column of contacts (the expression of the index contacts_name_key, exactly). */
export function nameKeySql(column: string): RawBuilder<string> {
  // translate() over the long list of accented letters is most of the cost; an ASCII name has none of them.
  return sql<string>`btrim(regexp_replace(lower(case when ${sql.ref(column)} ~ '[^\\x01-\\x7f]' then translate(${sql.ref(column)}, ${sql.lit(ACCENTED)}, ${sql.lit(PLAIN)}) else ${sql.ref(column)} end), '[[:space:][:punct:]]+', ' ', 'g'))`;
}

/**
 * The mailbox an email match key reaches without its `+tag`: `ada+news@example.org` is `ada@example.org`. The
 * match key (identity-values.ts) already folds Gmail's dots and tags, so what is left is other providers'.
 * Null for an address without a tag.
 */
export function aliasKey(emailKey: string): string | null {
  const at = emailKey.lastIndexOf('@');
  if (at < 0) return null;
  const local = emailKey.slice(0, at);
  const plus = local.indexOf('+');
  if (plus < 0) return null;
  return `${local.slice(0, plus)}@${emailKey.slice(at + 1)}`;
}

/** `aliasKey` in SQL over an email identity's value (the index contact_identities_email_alias's expression). */
export function aliasKeySql(column: string): RawBuilder<string> {
  const value = sql.ref(column);
  return sql<string>`(split_part(split_part(${value}, '@', 1), '+', 1) || '@' || split_part(${value}, '@', 2))`;
}

/** Whether an email identity's value has a tag: the rows the alias index holds. */
export function taggedSql(column: string): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(column)} like '%+%@%'`;
}

/**
 * A website as two profiles are compared: scheme, `www.`, query, fragment and a trailing slash dropped,
 * lower case. `https://www.Ada.dev/` and `ada.dev` are one site.
 */
export function siteKey(url: string): string {
  return url
    .trim()
    .toLowerCase()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
    .replace(/^www\./, '')
    .replace(/[?#].*$/s, '')
    .replace(/\/+$/, '');
}

/** `siteKey` in SQL. */
export function siteKeySql(value: RawBuilder<string>): RawBuilder<string> {
  return sql<string>`rtrim(regexp_replace(regexp_replace(regexp_replace(lower(btrim(${value})), '^[a-z][a-z0-9+.-]*://', ''), '^www\\.', ''), '[?#].*$', ''), '/')`;
}
