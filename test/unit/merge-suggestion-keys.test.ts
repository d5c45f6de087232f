import fs from 'node:fs';
import type { CompiledQuery } from 'kysely';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ACCENTED, PLAIN, aliasKey, aliasKeySql, nameKey, nameKeySql, siteKey } from '../../src/modules/merge-suggestions/match-keys.ts';

const compiler = new Kysely<unknown>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});
const sqlOf = (builder: { compile(db: Kysely<unknown>): CompiledQuery }) => builder.compile(compiler).sql;

/** The keys merge suggestions match on (docs/ingestion.md, "Likely duplicates: merge suggestions"). */
describe('merge suggestion keys', () => {
  it('compares full names without case, accents, punctuation or extra spaces', () => {
    expect(nameKey('  Ada   Lovelace ')).toBe('ada lovelace');
    expect(nameKey('ADA LOVELACE')).toBe('ada lovelace');
    expect(nameKey("José O'Brien-Núñez")).toBe('jose o brien nunez');
    expect(nameKey('Łukasz Żółć')).toBe('lukasz zolc');
    expect(nameKey('Zoë Ångström')).toBe('zoe angstrom');
    expect(nameKey('Dr. Grace M. Hopper')).toBe('dr grace m hopper');
    expect(nameKey('李小龍')).toBe('李小龍');
    expect(nameKey('...')).toBe('');
    // Family members share a surname, not a name.
    expect(nameKey('Ada Byron')).not.toBe(nameKey('Annabella Byron'));
  });

  it('maps each accented letter to one plain letter, and the SQL is the index expression of migration 0043', () => {
    expect([...ACCENTED]).toHaveLength([...PLAIN].length);
    const migration = fs.readFileSync(new URL('../../src/db/migrations/0043_merge_suggestions.sql', import.meta.url), 'utf8');
    // The compiled expression, with the column as the index names it, is in the migration word for word.
    const expression = sqlOf({ compile: (db) => db.selectNoFrom(nameKeySql('full_name').as('k')).compile() }).replace(/^select | as "k"$/g, '');
    expect(migration).toContain(expression.replaceAll('"full_name"', 'full_name'));
    const alias = sqlOf({ compile: (db) => db.selectNoFrom(aliasKeySql('value').as('k')).compile() }).replace(/^select | as "k"$/g, '');
    expect(migration).toContain(alias.replaceAll('"value"', 'value'));
  });

  it('reads the mailbox of an address without its +tag, and nothing for an address without one', () => {
    expect(aliasKey('ada+news@example.org')).toBe('ada@example.org');
    expect(aliasKey('support+ada@acme.com')).toBe('support@acme.com');
    expect(aliasKey('a+b+c@x.io')).toBe('a@x.io');
    expect(aliasKey('ada@example.org')).toBeNull();
  });

  it('compares websites without scheme, www., query or trailing slash', () => {
    expect(siteKey('https://www.Ada.dev/')).toBe('ada.dev');
    expect(siteKey('http://ada.dev/blog/?utm=x#top')).toBe('ada.dev/blog');
    expect(siteKey('ada.dev')).toBe('ada.dev');
  });
});
