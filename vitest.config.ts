import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './scripts/vitest-slow-first-sequencer.ts';

// Node's compile cache for the test workers and every process a test spawns with the inherited
// environment (the CLI, services started as children): each spawn of the same modules skips type
// stripping and compiling. A CLI start went from ~450 to ~270 ms here (P104). Kept under node_modules so a
// clean clone starts empty and no stale cache outlives an install.
const compileCache =
  process.env['NODE_COMPILE_CACHE'] ??
  fileURLToPath(new URL('./node_modules/.cache/node-compile-cache', import.meta.url));

export default defineConfig({
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'packages/*/test/**/*.test.ts',
      'services/*/src/**/*.test.ts',
      'services/*/test/**/*.test.ts',
      'deploy/**/*.test.ts',
      'scripts/**/*.test.ts',
      'bench/**/*.test.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One test file per core. Vitest's default (cores - 1) gives a 2-core CI machine one worker, and the
    // suite then used 1.05 cores of 2: the main process mostly waits on its workers (P104).
    maxWorkers: Math.max(availableParallelism(), 2),
    // The slowest files first, so no long file starts last while the other worker has run out of files (P548).
    sequence: { sequencer: SlowFirstSequencer },
    env: { NODE_COMPILE_CACHE: compileCache },
    reporters: ['default', './scripts/vitest-summary-reporter.ts'],
  },
});
