// The thread names the breakdown groups by are Node's own: if a Node upgrade renames its threads, the
// groups fall into `other:` and this fails before a bench prints a wrong account.
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { cpuByGroupMs, parseMachineJiffies, threadGroupOf, threadsCpu } from './proc-stats.ts';

describe('threadsCpu', () => {
  it('groups this process main thread as main and a worker_threads thread as workers', async () => {
    const worker = new Worker('setInterval(() => {}, 1000)', { eval: true });
    await new Promise((resolve) => worker.once('online', resolve));
    try {
      const threads = threadsCpu(process.pid);
      expect(threads.filter((t) => t.group === 'main').map((t) => t.tid)).toEqual([process.pid]);
      expect(threads.filter((t) => t.group === 'workers')).toHaveLength(1);
      expect(threads.map((t) => t.group)).toContain('v8-helpers');
      expect(threadGroupOf('MainThread')).toBe('main');
      // P551: a worker that has run has been switched in at least once; the count is read per thread.
      const worker0 = threads.find((t) => t.group === 'workers');
      expect(worker0?.switches).toBeGreaterThan(0);
    } finally {
      await worker.terminate();
    }
  });
});

describe('cpuByGroupMs', () => {
  it('sums each group over the interval and counts a thread that started during it whole', () => {
    const before = [
      { tid: 1, comm: 'MainThread', group: threadGroupOf('MainThread'), cpuMs: 100 },
      { tid: 2, comm: 'V8Worker', group: threadGroupOf('V8Worker'), cpuMs: 10 },
      { tid: 3, comm: 'V8Worker', group: threadGroupOf('V8Worker'), cpuMs: 20 },
    ];
    const after = [
      { tid: 1, comm: 'MainThread', group: threadGroupOf('MainThread'), cpuMs: 130 },
      { tid: 2, comm: 'V8Worker', group: threadGroupOf('V8Worker'), cpuMs: 15 },
      { tid: 3, comm: 'V8Worker', group: threadGroupOf('V8Worker'), cpuMs: 22 },
      { tid: 4, comm: 'WorkerThread', group: threadGroupOf('WorkerThread'), cpuMs: 40 },
      { tid: 5, comm: 'node-foo', group: threadGroupOf('node-foo'), cpuMs: 1 },
    ];
    expect(Object.fromEntries(cpuByGroupMs(before, after))).toEqual({
      main: 30,
      'v8-helpers': 7,
      workers: 40,
      'other:node-foo': 1,
    });
  });

  it('adds up what `pick` reads instead (the kernel time, the page faults)', () => {
    const thread = (tid: number, group: string, systemMs: number, minorFaults: number) => ({
      tid,
      comm: group,
      group,
      cpuMs: 1000,
      systemMs,
      minorFaults,
    });
    const before = [thread(1, 'main', 5, 100), thread(2, 'workers', 10, 1000)];
    const after = [thread(1, 'main', 7, 150), thread(2, 'workers', 16, 4000), thread(3, 'workers', 1, 20)];
    expect(Object.fromEntries(cpuByGroupMs(before, after, (t) => t.systemMs ?? 0))).toEqual({
      main: 2,
      workers: 7,
    });
    expect(Object.fromEntries(cpuByGroupMs(before, after, (t) => t.minorFaults ?? 0))).toEqual({
      main: 50,
      workers: 3020,
    });
  });

  it('reads this process: its kernel time and page faults grow when it maps fresh memory', () => {
    const before = threadsCpu(process.pid);
    const pages: Uint8Array[] = [];
    for (let i = 0; i < 64; i++) pages.push(new Uint8Array(256 * 1024).fill(1));
    const after = threadsCpu(process.pid);
    const faults = [...cpuByGroupMs(before, after, (t) => t.minorFaults ?? 0).values()].reduce(
      (a, b) => a + b,
      0,
    );
    // 16 MB touched for the first time: at least a fault per 64 KB even with large pages or fault-around.
    expect(faults).toBeGreaterThan(256);
    expect(pages.length).toBe(64);
  });
});

describe('parseMachineJiffies', () => {
  it('counts steal as busy and apart, idle and iowait as neither, and ignores guest time (already in user)', () => {
    // user nice system idle iowait irq softirq steal guest guest_nice
    expect(parseMachineJiffies('cpu  100 5 40 1000 7 3 2 11 50 0')).toEqual({
      busy: 100 + 5 + 40 + 3 + 2 + 11,
      steal: 11,
      total: 100 + 5 + 40 + 3 + 2 + 11 + 1000 + 7,
    });
  });
});
