import { describeProspectorImport } from './prospector-import-suite.ts';

describeProspectorImport('pglite');
