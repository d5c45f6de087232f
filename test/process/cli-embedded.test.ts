import { describeCli } from './cli-suite.ts';

describeCli('pglite');
