import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createsTable, splitStatements, withoutComments } from '../../src/db/sql-statements.ts';

describe('splitStatements', () => {
  it('splits at top-level semicolons and drops empty and comment-only pieces (a comment stays with the statement it precedes)', () => {
    expect(splitStatements('create table a (x int);\n\n-- done;\ncreate index on a (x) ;\n;')).toEqual([
      'create table a (x int)',
      '-- done;\ncreate index on a (x)',
    ]);
  });

  it('keeps semicolons inside strings, quoted names, comments and dollar-quoted bodies', () => {
    const script = [
      "insert into t values ('a;b', 'it''s;');",
      'create table "odd;name" (x int);',
      'select 1 /* a; /* nested; */ still; */ + 1;',
      'create function f() returns void language plpgsql as $$ begin perform 1; end $$;',
      'create function g() returns int language sql as $body$ select $1; $body$;',
      'select 2 -- trailing; comment\n;',
    ].join('\n');
    expect(splitStatements(script)).toEqual([
      "insert into t values ('a;b', 'it''s;')",
      'create table "odd;name" (x int)',
      'select 1 /* a; /* nested; */ still; */ + 1',
      'create function f() returns void language plpgsql as $$ begin perform 1; end $$',
      'create function g() returns int language sql as $body$ select $1; $body$',
      'select 2 -- trailing; comment',
    ]);
  });

  it('does not take a parameter or a name with a dollar for a body', () => {
    expect(splitStatements('select $1; select a$b from t;')).toEqual(['select $1', 'select a$b from t']);
  });

  it('gives back every migration whole: joined again, the statements are the script without its separators', () => {
    const dir = path.resolve('src/db/migrations');
    for (const file of fs.readdirSync(dir).filter((name) => name.endsWith('.sql'))) {
      const script = fs.readFileSync(path.join(dir, file), 'utf8');
      const statements = splitStatements(script);
      expect(statements.length, file).toBeGreaterThan(0);
      // Each statement is a stretch of the script, in order, with nothing but separators and comments between.
      let at = 0;
      for (const statement of statements) {
        const found = script.indexOf(statement, at);
        expect(found, `${file}: ${statement.slice(0, 60)}`).toBeGreaterThanOrEqual(at);
        const between = script
          .slice(at, found)
          .replace(/--[^\n]*/g, '')
          .replace(/[\s;]/g, '');
        expect(between, file).toBe('');
        at = found + statement.length;
      }
    }
  });
});

describe('migrations after 0039', () => {
  // On a distributed database a new table is distributed right after its CREATE TABLE statement, and only
  // then can it have foreign keys (docs/scaling.md, "Migrations").
  it('create tables without foreign keys, which later statements add', () => {
    const dir = path.resolve('src/db/migrations');
    for (const file of fs.readdirSync(dir).filter((name) => name.endsWith('.sql') && Number(name.slice(0, 4)) > 39)) {
      for (const statement of splitStatements(fs.readFileSync(path.join(dir, file), 'utf8'))) {
        const code = withoutComments(statement);
        if (createsTable(statement)) expect(/\breferences\b/i.test(code), `${file}: ${code.slice(0, 80)}`).toBe(false);
      }
    }
  });
});
