/**
 * Is a maintained Markdown parser affordable on the push path (not if it costs more than 10 % of a push)? Times
 * Hearth's converter (markdown-text.ts), a parse with mdast-util-from-markdown + GFM (remark's parser), and
 * that parse followed by the least walk to text, on a GitHub-issue-like body, against activity pushes carrying
 * that body on PostgreSQL, in one run; and both on a body built to make parsers backtrack (pushes are untrusted
 * input). `npm run bench:markdown`.
 */
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import { systemClock } from '../src/clock.ts';
import { cliActor, cliWriter } from '../src/core/writer.ts';
import { openDatabase } from '../src/db/database.ts';
import { plainText } from '../src/modules/activities/markdown-text.ts';
import { createServices } from '../src/services.ts';
import { createBenchDatabase, DEFAULT_SERVER_URL } from './database.ts';
import { describeMachine } from './machine.ts';

const RUNS = 2_000;
const PUSHES = 400;
const BODY = `## Bug: the ingress controller drops websocket connections

When I deploy **v1.4.2** behind the \`nginx-ingress\` controller, websocket connections are closed after
60 seconds. See [the docs](https://example.com/docs/ingress?x=1#timeouts) and patch #1234.

- [x] reproduced on minikube
- [ ] reproduced on EKS
- tried \`proxy-read-timeout: 3600\`

\`\`\`yaml
metadata:
  annotations:
    nginx.ingress.kubernetes.io/proxy-read-timeout: "3600"
\`\`\`

| version | works |
|---|---|
| 1.3 | yes |
| 1.4 | no |

> Thanks @maintainer for the quick _reply_! ~~It was fine before~~.
`;

/** Median milliseconds of `work` over RUNS calls, after a warm-up. */
function median(work: () => unknown, runs = RUNS): number {
  for (let run = 0; run < 200; run++) work();
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    work();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

/** remark's tree for a body. */
const parse = () => fromMarkdown(BODY, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });

/**
 * The least a converter built on that tree must do besides parsing: visit every node and join its leaves'
 * text (a real one also handles HTML, entities, definitions and spacing, so costs more).
 */
function leafText(node: { type: string; value?: string; children?: unknown[] }): string {
  if (node.type === 'text' || node.type === 'inlineCode' || node.type === 'code') return node.value ?? '';
  if (!node.children) return '';
  const parts = (node.children as (typeof node)[]).map(leafText);
  return parts.join(['root', 'list', 'blockquote', 'table'].includes(node.type) ? '\n' : node.type === 'tableRow' ? ' | ' : '');
}

/** A body built to make parsers backtrack: runs of unmatched delimiters, as the converter's own test uses. */
const HOSTILE = '**'.repeat(20_000) + '`'.repeat(5_000) + '[x]('.repeat(5_000) + '<!--'.repeat(5_000) + '_a'.repeat(20_000);

/** Milliseconds of one call. */
function once(work: () => unknown): number {
  const started = performance.now();
  work();
  return performance.now() - started;
}

const hand = median(() => plainText({ type: 'markdown', value: BODY }));
const remark = median(parse);
const remarkToText = median(() => leafText(parse()));
const handHostile = once(() => plainText({ type: 'markdown', value: HOSTILE }));
const remarkHostile = once(() => fromMarkdown(HOSTILE, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }));

const serverUrl = process.env.BENCH_DATABASE_URL ?? DEFAULT_SERVER_URL;
const database = await createBenchDatabase(serverUrl);
const connection = await openDatabase({ engine: 'postgres', url: database.url, poolSize: 4 });
try {
  const services = await createServices({
    db: connection.db,
    clock: systemClock,
    config: { jwtSecret: null, publicUrl: 'http://127.0.0.1', rateLimit: { perToken: 1_000_000, perAddress: 1_000, windowSeconds: 60 } },
  });
  const setup = await services.communities.init(cliActor());
  const writer = cliWriter(setup.communityId);
  const times: number[] = [];
  const cpuBefore = process.cpuUsage();
  for (let push = 0; push < PUSHES; push++) {
    const started = performance.now();
    await services.ingestion.pushActivity(writer, setup.sourceId, {
      id: `md-${push}`,
      activityType: 'made_post_topic',
      user: { id: `u-${push % 50}`, email: `u${push % 50}@example.org` },
      content: { type: 'markdown', value: BODY },
      timestamp: '2026-11-01T10:00:00Z',
    });
    times.push(performance.now() - started);
  }
  const cpu = process.cpuUsage(cpuBefore);
  // What a push costs Hearth's process (its CPU time; the rest of its wall time is PostgreSQL's), and
  // what it takes from end to end.
  const pushCpuMs = (cpu.user + cpu.system) / 1000 / PUSHES;
  const pushMs = times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
  const row = (name: string, ms: number) =>
    `${name.padEnd(40)} ${ms.toFixed(3).padStart(8)} ms   ${((ms / pushCpuMs) * 100).toFixed(1).padStart(6)} % of a push's CPU   ${((ms / pushMs) * 100).toFixed(1).padStart(5)} % of its time`;
  console.log(`Body of ${BODY.length} characters; medians of ${RUNS} conversions and ${PUSHES} pushes (PostgreSQL, one connection).`);
  console.log(row('Hearth converter (markdown-text.ts)', hand));
  console.log(row('remark parse only (mdast + GFM)', remark));
  console.log(row('remark parse and a minimal walk to text', remarkToText));
  console.log(`one activity push with that body: ${pushMs.toFixed(3)} ms median, ${pushCpuMs.toFixed(3)} ms of Hearth's CPU on average`);
  console.log(
    `A hostile body of ${HOSTILE.length.toLocaleString('en')} characters, once: Hearth's converter ${handHostile.toFixed(0)} ms, remark's parse ${remarkHostile.toFixed(0)} ms.`,
  );
  const machine = await describeMachine(connection.db);
  console.log(
    `Machine: ${machine.cpuModel}, ${machine.cpus} CPUs, ${machine.memoryGiB} GiB, Node ${machine.node}, PostgreSQL ${machine.postgres}, load ${machine.loadAverage}`,
  );
} finally {
  await connection.close();
  await database.drop();
}
