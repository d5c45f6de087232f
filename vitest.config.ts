import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Each file builds its own databases; PGlite is CPU-bound WASM, so keep parallelism near the cores.
    maxWorkers: 2,
  },
});
