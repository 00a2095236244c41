import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { GcTrace } from './gc-trace.ts';

const ISOLATE = '0x5a1b2c3d4e00';

describe('GcTrace', () => {
  it('counts scavenges and mark-compacts by isolate and reason, pause and heap included', () => {
    const trace = new GcTrace();
    trace.counting = true;
    trace.feed(
      Buffer.from(
        [
          `[4242:${ISOLATE}]     1234 ms: Scavenge 5.1 (6.2) -> 4.3 (7.2) MB, pooled: 0.0 MB, 0.85 / 0.00 ms  (average mu = 1.000, current mu = 1.000) allocation failure;`,
          `[4242:${ISOLATE}]     1300 ms: Mark-Compact 30.2 (41.0) -> 12.5 (40.0) MB, pooled: 0.0 MB, 4.10 / 0.00 ms  (+ 2.0 ms in 12 steps since start of marking, biggest step 0.3 ms, walltime since start of marking 40 ms) (average mu = 0.97, current mu = 0.95) finalize incremental marking via task; GC in old space requested`,
          `[4242:0x7f0000000001]     1310 ms: Scavenge 2.0 (3.0) -> 1.0 (3.0) MB, 0.25 / 0.00 ms  (average mu = 1.000, current mu = 1.000) task;`,
          'not a trace line',
        ].join('\n') + '\n',
      ),
    );
    const main = trace.isolates.get(ISOLATE);
    expect(main).toMatchObject({ scavenges: 1, markCompacts: 1, lastHeapMb: 12.5 });
    expect(main?.pauseMs).toBeCloseTo(4.95, 5);
    expect([...(main?.reasons ?? [])]).toEqual([
      ['Scavenge: allocation failure', 1],
      ['Mark-Compact: finalize incremental marking via task; GC in old space requested', 1],
    ]);
    expect(trace.isolates.get('0x7f0000000001')).toMatchObject({
      scavenges: 1,
      markCompacts: 0,
      pauseMs: 0.25,
    });
  });

  it('joins a line split across chunks and ignores lines while not counting', () => {
    const trace = new GcTrace();
    const line = `[1:${ISOLATE}]  5 ms: Scavenge 1.0 (2.0) -> 0.5 (2.0) MB, 0.10 / 0.00 ms  (average mu = 1.000, current mu = 1.000) allocation failure;\n`;
    trace.feed(Buffer.from(line));
    expect(trace.isolates.size).toBe(0);
    trace.counting = true;
    trace.feed(Buffer.from(line.slice(0, 30)));
    trace.feed(Buffer.from(line.slice(30)));
    expect(trace.isolates.get(ISOLATE)?.scavenges).toBe(1);
  });

  it('reads what this Node prints under --trace-gc, each collection with a reason', () => {
    // Garbage enough for scavenges, then a full collection on request.
    const script =
      'let a = []; for (let i = 0; i < 2e5; i++) { a.push({ i, s: "x".repeat(20) }); if (a.length > 5e4) a = []; } globalThis.gc();';
    const child = spawnSync(process.execPath, ['--trace-gc', '--expose-gc', '-e', script], {
      encoding: 'buffer',
    });
    expect(child.status).toBe(0);
    const trace = new GcTrace();
    trace.counting = true;
    trace.feed(Buffer.concat([child.stdout, Buffer.from('\n')]));
    expect(trace.isolates.size).toBe(1);
    const [gc] = [...trace.isolates.values()];
    expect(gc?.scavenges).toBeGreaterThan(0);
    expect(gc?.markCompacts).toBeGreaterThan(0);
    expect(gc?.lastHeapMb).toBeGreaterThan(0);
    const reasons = [...(gc?.reasons.keys() ?? [])];
    expect(reasons.some((r) => r.startsWith('Mark-Compact') && /testing/.test(r))).toBe(true);
    expect(reasons.every((r) => !r.endsWith(': ?'))).toBe(true);
  });
});
