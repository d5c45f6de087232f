import fs from 'node:fs';
import { describe, expect, inject, it } from 'vitest';
import { SCHEMA_FILE, schemaTypes } from '../../scripts/db-types.ts';

/**
 * src/db/schema.ts is generated from the migrations and committed: a migration that changes a table
 * without `npm run db:types` fails here rather than leaving the Kysely types behind the database.
 */
describe('src/db/schema.ts', () => {
  it('is what regenerating it from the migrations gives', async () => {
    const generated = await schemaTypes(new Blob([fs.readFileSync(inject('pgliteTemplate'))]));
    const committed = fs.readFileSync(SCHEMA_FILE, 'utf8');
    if (committed !== generated) {
      const ours = committed.split('\n');
      const theirs = generated.split('\n');
      const line = ours.findIndex((text, index) => text !== theirs[index]);
      expect.fail(
        `src/db/schema.ts is out of date (line ${line + 1}: committed ${JSON.stringify(ours[line])}, generated ${JSON.stringify(theirs[line])}); ` +
          'run `npm run db:types` and commit the result',
      );
    }
  });
});
