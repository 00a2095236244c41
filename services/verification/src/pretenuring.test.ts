// P476: after turnOffAllocationSitePretenuring, no isolate of the process (a worker thread started later included)
// takes a pretenuring decision; without it, the same program's worker takes some (the control: the trace works).
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const MODULE = new URL('./pretenuring.ts', import.meta.url).href;

// A worker whose literal site makes objects that live long (kept in an array): V8 pretenures such a site.
const program = (turnOff: boolean) => `
import { Worker } from 'node:worker_threads';
const { turnOffAllocationSitePretenuring } = await import(${JSON.stringify(MODULE)});
if (${turnOff}) turnOffAllocationSitePretenuring();
new Worker(\`
let keep = [];
function make(i) { return { i, pair: [i, i + 1], text: 'x' + i }; }
for (let r = 0; r < 60; r++) { for (let i = 0; i < 20000; i++) keep.push(make(i)); if (keep.length > 100000) keep = []; }
\`, { eval: true });
`;

function pretenuringLines(turnOff: boolean): number {
  const child = spawnSync(
    process.execPath,
    ['--trace-pretenuring-statistics', '--input-type=module', '-e', program(turnOff)],
    { encoding: 'utf8' },
  );
  expect(child.status, child.stderr).toBe(0);
  return child.stdout.split('\n').filter((line) => line.includes('pretenuring: AllocationSite')).length;
}

describe('turnOffAllocationSitePretenuring', () => {
  it('leaves a later worker thread with no pretenuring decisions', () => {
    expect(pretenuringLines(false)).toBeGreaterThan(0);
    expect(pretenuringLines(true)).toBe(0);
  });
});
