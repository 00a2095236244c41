// Prints one plain closing line ("Tests: N passed, N failed, N skipped") after Vitest's own summary,
// so CI logs state the count of tests that ran in a form any reader can parse.
import type { Reporter, TestModule } from 'vitest/node';

/** Test files that run one test per published or committed vector (shared, own, corpus, upstream). */
const VECTOR_FILE = /(vectors|corpus|upstream|interop|golden)[^/]*\.test\.ts$/;

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
    // Vitest prints its own summary after this hook; the line goes out last, on exit.
    process.once('exit', () => {
      process.stdout.write(`\nVector-driven tests (shared, own and corpus vectors): ${vectorTests} passed\n`);
      process.stdout.write(`\nTests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
    });
  }
}
