import { describe, it } from 'vitest';
import { walkSuite } from './contacts-walk.suite.ts';

// One file per engine, so that CI's two workers walk both at once.
if (process.env.TEST_DATABASE_URL) walkSuite('postgres');
else describe.skip('walking contacts (postgres)', () => it.skip('needs TEST_DATABASE_URL', () => {}));
