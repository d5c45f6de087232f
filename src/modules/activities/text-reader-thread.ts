import { parentPort } from 'node:worker_threads';
import { readActivityText, type ActivityText } from './text-reading.ts';

/** One message of the text reader: texts in, their readings out, in order, under the message's ID. */
parentPort!.on('message', ({ id, texts }: { id: number; texts: ActivityText[] }) => {
  parentPort!.postMessage({ id, readings: texts.map(readActivityText) });
});
