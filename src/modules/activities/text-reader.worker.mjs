// The text reader's thread starts here: worker threads do not inherit the TypeScript loader of the thread
// that starts them (nor does the bundle `hearth` runs from carry this thread's code), so it registers its own.
import { register } from 'tsx/esm/api';

register();
await import('./text-reader.thread.ts');
