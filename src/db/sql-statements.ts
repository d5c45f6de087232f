/**
 * Splits a migration script into its statements: at each semicolon that is not inside a string, a quoted
 * identifier, a dollar-quoted body or a comment. A Citus coordinator plans and propagates DDL one statement
 * at a time and refuses some of it sent as one multi-statement string (docs/scaling.md).
 */
export function splitStatements(script: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let i = 0;
  const n = script.length;
  while (i < n) {
    const c = script[i];
    const next = script[i + 1];
    if (c === '-' && next === '-') {
      const end = script.indexOf('\n', i);
      i = end === -1 ? n : end + 1;
    } else if (c === '/' && next === '*') {
      // Block comments nest in PostgreSQL.
      let depth = 1;
      i += 2;
      while (i < n && depth > 0) {
        if (script[i] === '/' && script[i + 1] === '*') {
          depth++;
          i += 2;
        } else if (script[i] === '*' && script[i + 1] === '/') {
          depth--;
          i += 2;
        } else i++;
      }
    } else if (c === "'" || c === '"') {
      // A doubled quote inside is the quote itself; E'' strings' backslash escapes are not used here.
      i++;
      while (i < n) {
        if (script[i] === c) {
          if (script[i + 1] === c) i += 2;
          else break;
        } else i++;
      }
      i++;
    } else if (c === '$') {
      const tag = /^\$([A-Za-z_][A-Za-z_0-9]*)?\$/.exec(script.slice(i, i + 64));
      // `$1` is a parameter, and `a$b` part of a name: only a tag opens a body.
      if (tag && !/[A-Za-z_0-9]/.test(script[i - 1] ?? '')) {
        const end = script.indexOf(tag[0], i + tag[0].length);
        i = end === -1 ? n : end + tag[0].length;
      } else i++;
    } else if (c === ';') {
      push(script.slice(start, i));
      start = ++i;
    } else i++;
  }
  push(script.slice(start));
  return statements;

  function push(text: string) {
    if (withoutComments(text).trim() !== '') statements.push(text.trim());
  }
}

/** Whether the statement creates a table (its comments aside). */
export function createsTable(statement: string): boolean {
  return /^\s*create\s+(unlogged\s+)?table\b/i.test(withoutComments(statement));
}

/** The statement without its comments (a quote holding `--` is not one of Hearth's migrations' forms). */
export function withoutComments(text: string): string {
  return text.replace(/--[^\n]*/g, '').replace(/\/\*[\s\S]*?\*\//g, '');
}
