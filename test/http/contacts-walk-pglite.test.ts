import { walkSuite } from './contacts-walk.suite.ts';

// One file per engine, so that CI's two workers walk both at once.
walkSuite('pglite');
