import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const MODULES = path.resolve(import.meta.dirname, '../../src/modules');

/** What a face hands out of a repository file other than types: each offence as `module: name from file`. */
function repositoryValuesOf(module: string): string[] {
  const file = path.join(MODULES, module, 'index.ts');
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const offences: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isExportDeclaration(statement) || !statement.moduleSpecifier || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const from = statement.moduleSpecifier.text;
    if (!from.endsWith('.repository.ts') || statement.isTypeOnly) continue;
    const clause = statement.exportClause;
    if (!clause || !ts.isNamedExports(clause)) {
      offences.push(`${module}: * from ${from}`);
      continue;
    }
    for (const element of clause.elements) if (!element.isTypeOnly) offences.push(`${module}: ${element.name.text} from ${from}`);
  }
  return offences;
}

describe('module faces', () => {
  // Other modules reach a module's SQL through its services (a `<subject>-tx.service.ts` for the work they
  // compose into their own transactions), never through a repository function: the module decides what it offers.
  it('export no repository function, only services, their factories, types and pure helpers', () => {
    const modules = fs.readdirSync(MODULES).filter((name) => fs.existsSync(path.join(MODULES, name, 'index.ts')));
    expect(modules.length).toBeGreaterThan(30);
    expect(modules.flatMap(repositoryValuesOf)).toEqual([]);
  });
});
