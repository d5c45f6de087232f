import { describe, it } from 'vitest';
import { ENGINES } from '../helpers/test-database.ts';
import { walkSuite } from './contacts-walk.suite.ts';

// One file per engine, so that CI's two workers walk both at once.
if (ENGINES.includes('pglite')) walkSuite('pglite');
// Skipped, not absent, when TEST_ENGINES leaves the embedded database out (a run on a Citus cluster,
// docs/scaling.md): a file with no test at all fails the run.
else describe.skip('walking contacts (pglite)', () => it.skip('TEST_ENGINES leaves out pglite', () => {}));
