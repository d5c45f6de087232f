import { threadId } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { readText, textReaderThread } from '../../src/modules/activities/text-reader.ts';
import { readActivityText, type ActivityText } from '../../src/modules/activities/text-reading.ts';

const TEXTS: ActivityText[] = [
  {
    title: { type: 'text', value: 'Connection pool leaks under load' },
    content: { type: 'markdown', value: 'The **PostgreSQL** connection pool leaks when the timeout fires. Great work on the Kubernetes operator, though!' },
  },
  { title: null, content: { type: 'text', value: 'This release broke our Docker build and I am very disappointed.' } },
  { title: { type: 'text', value: 'Ingress controller returns 404' }, content: null },
  { title: null, content: null },
];

/**
 * Activity texts are read on a thread of their own; what it answers is what reading them here gives, and a
 * thread that dies loses no text.
 */
describe('the text reader', () => {
  it('reads on a thread of its own, one message for the texts of one turn, each answer in its place', async () => {
    const texts = Array.from({ length: 100 }, (_, index) => TEXTS[index % TEXTS.length]!);
    const readings = await Promise.all(texts.map(readText));
    expect(readings).toEqual(texts.map(readActivityText));
    expect(readings[0]!.topics).toContain('PostgreSQL');
    expect(readings[1]!.sentiment).toBe('negative');
    expect(readings[2]).toEqual({ sentiment: null, topics: ['Ingress', 'controller'] });
    const thread = textReaderThread();
    expect(thread).not.toBeNull();
    expect(thread!.threadId).not.toBe(threadId);
  });

  it('reads here what a thread that died held, and starts a new thread for the next texts', async () => {
    const first = textReaderThread() ?? (await readText(TEXTS[0]!), textReaderThread()!);
    // Long texts (each about 10 ms to read), so that the thread is still reading them when it ends.
    const long = TEXTS.map((text, index) => ({ ...text, content: { type: 'text' as const, value: `${index} ${TEXTS[0]!.content!.value} `.repeat(40) } }));
    const held = Promise.all(long.map(readText));
    await new Promise((resolve) => setImmediate(resolve)); // the texts are sent
    await first.terminate();
    expect(await held).toEqual(long.map(readActivityText));
    expect(await readText(TEXTS[1]!)).toEqual(readActivityText(TEXTS[1]!));
    expect(textReaderThread()).not.toBeNull();
    expect(textReaderThread()).not.toBe(first);
  });
});
