// Vitest's file order for `pnpm test`: the files known to take longest first, then Vitest's own order (P548).
// Vitest orders by the durations of the last run when its cache has them, and by file size otherwise, which is
// every CI run (a clean clone, no cache). Size says little here: the 66-line keep-alive test blocks for 13 s, the
// anchor load test drives 40 s of load in 209 lines. Started late, such a file runs alone on one of the two workers
// while the other is idle, and CI waits for it. Started first, it overlaps the many short files.
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The slowest files of CI's last runs (the closing "Slowest test files" lines of `pnpm test`), slowest first. A file
 * not here runs in Vitest's order after these; a name that no longer exists is passed over.
 */
export const SLOW_FIRST: readonly string[] = [
  'services/anchor/src/load.test.ts',
  'services/anchor/test/hostile/evm-rpc-upstream.test.ts',
  'packages/cli/src/hostile-upstream.test.ts',
  'services/verification/src/process.test.ts',
  'services/anchor/test/local-chain-keep-alive.test.ts',
];

/** `files` with those named in `slowFirst` moved to the front, in that list's order; the rest keep theirs. */
export function slowFirst(
  files: readonly TestSpecification[],
  root: string,
  slowFirstList: readonly string[] = SLOW_FIRST,
): TestSpecification[] {
  const rank = (file: TestSpecification): number => {
    const at = slowFirstList.indexOf(relative(root, file.moduleId));
    return at === -1 ? slowFirstList.length : at;
  };
  // Array.prototype.sort is stable: files of equal rank (all those not listed) keep Vitest's order.
  return [...files].sort((a, b) => rank(a) - rank(b));
}

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return slowFirst(await super.sort(files), this.ctx.config.root);
  }
}
