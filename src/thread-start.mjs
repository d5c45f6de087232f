// A worker thread of Hearth starts here, and then loads the module named by its `workerData.module` (a file
// URL). A worker inherits neither the TypeScript loader of the thread that starts it nor the bundle `hearth`
// runs from, so it registers tsx for itself: the first start of a thread compiles its modules (tsx caches
// them on disk for the next).
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.module);
