import { describe, it } from 'vitest';
import { walkSuite } from './contacts-walk.suite.ts';

// One file per engine, so that CI's two workers walk both at once.
if (process.env.TEST_DATABASE_URL) walkSuite('postgres');
// Skipped, not absent, without a PostgreSQL server: every other database test leaves PostgreSQL out of
// ENGINES in that case, and a file with no test at all fails the run. CI sets TEST_DATABASE_URL (.ci/run),
// so there this walk always runs.
else describe.skip('walking contacts (postgres)', () => it.skip('needs TEST_DATABASE_URL (a PostgreSQL server)', () => {}));
