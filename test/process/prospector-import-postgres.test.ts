import { describeProspectorImport } from './prospector-import-suite.ts';

describeProspectorImport('postgres');
