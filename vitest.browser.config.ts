// The browser tests of the web console (issue 17): real services, Debian's Chromium through playwright-core.
// Run by `pnpm test:browser` (and .ci/run); kept out of `pnpm test`, whose config includes only packages/ and services/.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    testTimeout: 90_000,
    hookTimeout: 90_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
