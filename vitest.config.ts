import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

/**
 * The files that take longest, longest first (measured in a CI run on the 2-core machine, both engines: from
 * about 105 s for the bench's tiny run down to 16 s). Vitest orders files by their last durations when it has
 * them, but CI starts from a fresh clone, where it orders them by size: these small files came last, and one
 * worker walked thousands of contacts while the other had nothing left to run. Starting with them lets the short
 * files fill in around them, so both workers finish together.
 */
const LONGEST_FIRST = [
  'test/process/bench.test.ts',
  'test/http/contacts-walk-pglite.test.ts',
  'test/process/prospector-import-embedded.test.ts',
  'test/process/ingestion-durability.test.ts',
  'test/process/connector-crash.test.ts',
  'test/http/contacts-walk-postgres.test.ts',
  'test/http/ingestion-batch.test.ts',
  'test/http/openapi-fuzz.test.ts',
  'test/service/ingest-batch.test.ts',
  'test/process/cli-embedded.test.ts',
  'test/http/connectors.test.ts',
  'test/process/prospector-import-postgres.test.ts',
  'test/process/first-run.test.ts',
  'test/process/user-cli.test.ts',
  'test/process/data-available-cli.test.ts',
  'test/http/console-connectors.test.ts',
  'test/process/feed-crash.test.ts',
  'test/http/connector-review.test.ts',
  'test/http/ingestion-fuzz.test.ts',
  'test/http/sign-in-throttling.test.ts',
  'test/process/bulk-update-crash.test.ts',
  'test/process/webhook-crash.test.ts',
];

class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const index = LONGEST_FIRST.indexOf(path.relative(file.project.config.root, file.moduleId).split(path.sep).join('/'));
      return index === -1 ? LONGEST_FIRST.length : index;
    };
    // A stable sort: the other files keep Vitest's order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    // The workspace packages' tests run with the app's (packages/client tests against a real server).
    include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Each file builds its own databases; PGlite is CPU-bound WASM, so keep parallelism near the cores.
    maxWorkers: 2,
    // A worker keeps the modules it has loaded from one file to the next: loading the app anew for every
    // file was a fifth of the run. So no module may hold state a test depends on (a server's caches belong
    // to its services; module-level maps only memoize what never changes), and a test of what loading a
    // module does runs it in a process of its own (test/unit/gazetteer.test.ts).
    isolate: false,
    sequence: { sequencer: LongestFirstSequencer },
  },
});
