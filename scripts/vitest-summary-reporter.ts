// Prints one plain closing line ("Tests: N passed, N failed, N skipped") after Vitest's own summary,
// so CI logs state the count of tests that ran in a form any reader can parse, and the slowest files, so the
// CI's 20-minute budget shows where it goes.
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/** Test files that run one test per published or committed vector (shared, own, corpus, upstream). */
const VECTOR_FILE = /(vectors|corpus|upstream|interop|golden)[^/]*\.test\.ts$/;

/** How many of the slowest test files the closing lines name. */
const SLOWEST_SHOWN = 15;

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    let vectorTests = 0;
    for (const mod of testModules) {
      const vectorDriven = VECTOR_FILE.test(mod.moduleId);
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
        if (vectorDriven && state === 'passed') vectorTests++;
      }
    }
    const slowest = testModules
      .map((mod) => ({ file: relative(process.cwd(), mod.moduleId), ms: mod.diagnostic().duration }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, SLOWEST_SHOWN);
    // Vitest prints its own summary after this hook; the lines go out last, on exit.
    process.once('exit', () => {
      process.stdout.write('\nSlowest test files (tests and hooks, seconds):\n');
      for (const { file, ms } of slowest)
        process.stdout.write(`${(ms / 1000).toFixed(1).padStart(7)}  ${file}\n`);
      process.stdout.write(`\nVector-driven tests (shared, own and corpus vectors): ${vectorTests} passed\n`);
      process.stdout.write(`\nTests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
    });
  }
}
