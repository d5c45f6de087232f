import { Worker } from 'node:worker_threads';
import { readActivityText, type ActivityText, type TextReading } from './text-reading.ts';

/**
 * Reading an activity's text (Markdown to text, sentiment, topics) is the largest single part of a push's
 * CPU in Hearth's process, so it runs on a thread of its own: while the thread reads, the event loop goes on
 * with other requests and their statements, on the machine's other core (docs/architecture.md, "Reading an
 * activity's text"). The texts asked for in one turn of the event loop go to the thread in one message, a
 * batch's hundred as one.
 *
 * Nothing waits on the thread forever: if it cannot start or dies, the texts it held are read on the
 * calling thread; after three failures in a row every text is, and a warning says so.
 */
export function readText(text: ActivityText): Promise<TextReading> {
  if (failures >= MAX_FAILURES) return Promise.resolve(readActivityText(text));
  return new Promise((resolve) => {
    if (queued.length === 0) setImmediate(send);
    queued.push({ text, resolve });
  });
}

/** The thread reading texts now, if one runs (for tests and diagnostics). */
export function textReaderThread(): Worker | null {
  return thread;
}

interface Waiting {
  text: ActivityText;
  resolve: (reading: TextReading) => void;
}

const MAX_FAILURES = 3;

let thread: Worker | null = null;
let failures = 0;
let nextId = 0;
let queued: Waiting[] = [];
/** Messages sent and not yet answered, by ID. */
const sent = new Map<number, Waiting[]>();

function send(): void {
  const batch = queued;
  queued = [];
  let reader: Worker;
  try {
    reader = thread ?? start();
  } catch (error) {
    failed(null, error);
    readHere(batch);
    return;
  }
  const id = nextId++;
  sent.set(id, batch);
  // The thread holds the process open only while it has texts to answer (a command waiting on one must not
  // exit), never while idle.
  if (sent.size === 1) reader.ref();
  reader.postMessage({ id, texts: batch.map((waiting) => waiting.text) });
}

function start(): Worker {
  const reader = new Worker(new URL('../../thread-start.mjs', import.meta.url), {
    execArgv: [],
    name: 'hearth text reader',
    workerData: { module: new URL('./text-reader-thread.ts', import.meta.url).href },
  });
  reader.unref();
  reader.on('message', ({ id, readings }: { id: number; readings: TextReading[] }) => {
    failures = 0;
    const batch = sent.get(id);
    sent.delete(id);
    if (sent.size === 0) reader.unref();
    batch?.forEach((waiting, index) => waiting.resolve(readings[index]!));
  });
  reader.on('error', (error) => failed(reader, error));
  reader.on('exit', (code) => failed(reader, new Error(`the text reader's thread exited with code ${code}`)));
  thread = reader;
  return reader;
}

/** The thread failed: what it held is read here, and the next text starts a new one (up to MAX_FAILURES). */
function failed(reader: Worker | null, error: unknown): void {
  if (reader !== thread) return; // its 'exit' after its 'error'
  thread = null;
  failures += 1;
  if (failures === MAX_FAILURES) {
    process.emitWarning(
      `activity texts are read on the main thread from now on: ${error instanceof Error ? error.message : String(error)}`,
      'HearthTextReader',
    );
  }
  const held = [...sent.values()].flat();
  sent.clear();
  readHere(held);
}

function readHere(batch: Waiting[]): void {
  for (const waiting of batch) waiting.resolve(readActivityText(waiting.text));
}
