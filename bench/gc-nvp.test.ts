import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { GcNvpTrace } from './gc-nvp.ts';

describe('GcNvpTrace', () => {
  it('adds up allocation, promotion, pauses and helper-thread time by thread id', () => {
    const trace = new GcNvpTrace();
    trace.counting = true;
    trace.feed(
      Buffer.from(
        [
          '[7:0x1a2b:0]  10 ms: pause=0.9 mutator=18.5 gc=s background.scavenge.parallel=0.20 end_object_size=4100 allocated=5000 promoted=100',
          '[7:0x3c4d:2]  11 ms: pause=4.0 mutator=1.0 gc=mc background.mark=3.5 background.sweep=0.5 end_object_size=9000 allocated=2000 promoted=0',
          '[7:0x3c4d:2]  12 ms: pause=0.5 mutator=1.0 gc=s end_object_size=8000 allocated=1000 promoted=300',
          '[7:0x1a2b] pretenuring: threshold=0.85 (not a collection)',
        ].join('\n') + '\n',
      ),
    );
    expect(trace.threads.get(0)).toMatchObject({
      allocatedBytes: 5000,
      promotedBytes: 100,
      pauseMs: 0.9,
      lastObjectBytes: 4100,
    });
    expect(trace.threads.get(0)?.backgroundMs).toBeCloseTo(0.2, 5);
    const worker = trace.threads.get(2);
    expect(worker).toMatchObject({ allocatedBytes: 3000, promotedBytes: 300, lastObjectBytes: 8000 });
    expect(worker?.backgroundMs).toBeCloseTo(4, 5);
    expect([...(worker?.kinds ?? [])]).toEqual([
      ['mc', 1],
      ['s', 1],
    ]);
  });

  it('reads what this Node prints under --trace-gc --trace-gc-nvp, a worker thread apart from the main one', () => {
    const garbage =
      'let a = []; for (let i = 0; i < 2e5; i++) { a.push({ i }); if (a.length > 5e4) a = []; }';
    const script = `${garbage}; const { Worker } = require('node:worker_threads'); new Worker(${JSON.stringify(garbage)}, { eval: true });`;
    const child = spawnSync(process.execPath, ['--trace-gc', '--trace-gc-nvp', '-e', script], {
      encoding: 'buffer',
    });
    expect(child.status).toBe(0);
    const trace = new GcNvpTrace();
    trace.counting = true;
    trace.feed(Buffer.concat([child.stdout, Buffer.from('\n')]));
    expect([...trace.threads.keys()].sort()).toEqual([0, 1]);
    for (const gc of trace.threads.values()) {
      expect(gc.allocatedBytes).toBeGreaterThan(1_000_000);
      expect(gc.kinds.get('s')).toBeGreaterThan(0);
    }
  });
});
