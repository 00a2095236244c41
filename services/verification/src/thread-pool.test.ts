// The plain worker_threads pool (P620) on real threads: what VerifyPool relies on of piscina, kept. A thread that
// dies answers its task with 'worker exited' and the next task gets a new thread; a full queue is refused with
// piscina's message; a thread that cannot start answers the waiting tasks; threads start on demand and stop idle.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { ThreadPool } from './thread-pool.ts';

const dir = mkdtempSync(join(tmpdir(), 'thread-pool-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A thread speaking pool-thread.ts's messages: 'die' ends it mid-task, 'wait:N' answers after N ms.
const THREAD = join(dir, 'thread.mjs');
writeFileSync(
  THREAD,
  `import { parentPort } from 'node:worker_threads';
parentPort.on('message', (task) => {
  if (task === 'die') process.exit(3);
  if (task === 'throw') return parentPort.postMessage({ ok: false, error: new Error('task failed') });
  const wait = task.startsWith('wait:') ? Number(task.slice(5)) : 0;
  setTimeout(() => parentPort.postMessage({ ok: true, value: task }), wait);
});
parentPort.postMessage({ ready: true });
`,
);
const BROKEN = join(dir, 'broken.mjs');
writeFileSync(BROKEN, `throw new Error('cannot start');\n`);

const pools: ThreadPool<string, string>[] = [];
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.close();
});

function poolOf(overrides: Partial<ConstructorParameters<typeof ThreadPool>[0]> = {}) {
  const pool = new ThreadPool<string, string>({
    filename: THREAD,
    minThreads: 0,
    maxThreads: 2,
    maxQueue: 4,
    idleTimeout: 60_000,
    workerData: undefined,
    ...overrides,
  });
  const events = { created: 0, destroyed: 0, errors: 0 };
  pool.on('workerCreate', () => (events.created += 1));
  pool.on('workerDestroy', () => (events.destroyed += 1));
  pool.on('error', () => (events.errors += 1));
  pools.push(pool);
  return { pool, events };
}

describe('ThreadPool', () => {
  it('holds no thread until a task comes, then answers it', async () => {
    const { pool, events } = poolOf();
    expect(pool.threads.length).toBe(0);
    expect(await pool.run('a')).toBe('a');
    expect(events.created).toBe(1);
    expect(pool.threads.length).toBe(1);
  });

  it("answers a task whose thread dies with 'worker exited', and runs the next task on a new thread", async () => {
    const { pool, events } = poolOf({ maxThreads: 1 });
    expect(await pool.run('a')).toBe('a');
    const queued = pool.run('b');
    await expect(pool.run('die')).rejects.toThrow('worker exited with code: 3');
    // 'b' runs first and 'die' waits for it: the task before the death is answered too.
    expect(await queued).toBe('b');
    expect(await pool.run('c')).toBe('c');
    expect(events).toEqual({ created: 2, destroyed: 1, errors: 0 });
  });

  it('passes a failed task its error and keeps the thread', async () => {
    const { pool, events } = poolOf({ maxThreads: 1 });
    await expect(pool.run('throw')).rejects.toThrow('task failed');
    expect(await pool.run('a')).toBe('a');
    expect(events.created).toBe(1);
  });

  it("refuses a task when every thread is busy and the queue is full, with piscina's message", async () => {
    const { pool } = poolOf({ maxThreads: 1, maxQueue: 2 });
    // The thread started first: tasks that come while it starts wait in the queue (as piscina's do).
    expect(await pool.run('a')).toBe('a');
    const running = [pool.run('wait:300'), pool.run('wait:0'), pool.run('wait:0')];
    await expect(pool.run('x')).rejects.toThrow('Task queue is at limit');
    expect(pool.queueSize).toBe(2);
    expect(await Promise.all(running)).toEqual(['wait:300', 'wait:0', 'wait:0']);
    expect(pool.utilization).toBeGreaterThan(0);
  });

  it('stops a thread idle past idleTimeout, down to minThreads', async () => {
    const { pool, events } = poolOf({ idleTimeout: 50 });
    await Promise.all([pool.run('wait:100'), pool.run('wait:100')]);
    await vi.waitFor(() => expect(pool.threads.length).toBe(0), { timeout: 10_000, interval: 20 });
    expect(events.destroyed).toBe(events.created);
    expect(events.errors).toBe(0);
  });

  it('answers the waiting tasks of a thread that cannot start, and says so once', async () => {
    const { pool, events } = poolOf({ filename: BROKEN, maxThreads: 1 });
    const tasks = [pool.run('a'), pool.run('b')];
    for (const task of tasks) await expect(task).rejects.toThrow('worker exited with code: 1');
    // VerifyPool's readiness reads this event (a thread failed and none is alive).
    expect(events.errors).toBe(1);
    expect(events.created).toBe(0);
  });
});
