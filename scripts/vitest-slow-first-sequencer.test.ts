// The test order of `pnpm test` (P548): the listed slow files first, the rest in Vitest's order, and the list
// naming files that exist (a renamed file would silently drop back to Vitest's order).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { TestSpecification } from 'vitest/node';
import { SLOW_FIRST, slowFirst } from './vitest-slow-first-sequencer.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Only the field the order reads. */
const spec = (path: string) => ({ moduleId: `${ROOT}${path}` }) as TestSpecification;
const paths = (files: readonly TestSpecification[]) => files.map((f) => f.moduleId.slice(ROOT.length));

describe('the slow-first test order', () => {
  it('names test files that exist', () => {
    for (const path of SLOW_FIRST) expect(existsSync(`${ROOT}${path}`), path).toBe(true);
  });

  it("moves the listed files to the front in the list's order and keeps the others in theirs", () => {
    const given = ['a.test.ts', 'slow-2.test.ts', 'b.test.ts', 'slow-1.test.ts', 'c.test.ts'].map(spec);
    expect(paths(slowFirst(given, ROOT, ['slow-1.test.ts', 'gone.test.ts', 'slow-2.test.ts']))).toEqual([
      'slow-1.test.ts',
      'slow-2.test.ts',
      'a.test.ts',
      'b.test.ts',
      'c.test.ts',
    ]);
  });
});
