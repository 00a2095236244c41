import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { YoungCollector, type YoungSpace } from './young-collector.ts';

const MB = 1024 * 1024;

/** A young generation of `capacity` bytes that tasks fill and a collection empties; V8 scavenges when full. */
function fakeYoung(capacity: number) {
  let used = 0;
  const young = {
    collections: 0,
    scavengesInTasks: 0,
    space: (): YoungSpace => ({ used, available: capacity - used }),
    collect: () => {
      used = 0;
      young.collections += 1;
    },
    allocate: (bytes: number) => {
      if (used + bytes > capacity) {
        used = 0;
        young.scavengesInTasks += 1;
      }
      used += bytes;
    },
  };
  return young;
}

function runTasks(collector: YoungCollector, young: ReturnType<typeof fakeYoung>, sizes: readonly number[]) {
  for (const size of sizes) {
    collector.taskStarts();
    young.allocate(size);
    collector.taskEnded();
  }
}

describe('YoungCollector', () => {
  it('collects after a task when the next one, as large as the last, would not fit', () => {
    const young = fakeYoung(4 * MB);
    const collector = new YoungCollector(young.space, young.collect);
    runTasks(collector, young, Array(20).fill(2.8 * MB));
    // The first task teaches the size; from then on every task starts with an empty young generation.
    expect(young.scavengesInTasks).toBe(0);
    expect(young.collections).toBe(20);
    expect(collector.collections).toBe(20);
  });

  it('leaves small tasks to fill the young generation until the next would not fit', () => {
    const young = fakeYoung(4 * MB);
    const collector = new YoungCollector(young.space, young.collect);
    runTasks(collector, young, Array(40).fill(0.9 * MB));
    expect(young.scavengesInTasks).toBe(0);
    // Four tasks fit (3.6 MB, 0.4 left): one collection every four tasks.
    expect(young.collections).toBe(10);
  });

  it('sizes the next task by the largest of the recent ones, not the last', () => {
    const young = fakeYoung(4 * MB);
    const collector = new YoungCollector(young.space, young.collect);
    runTasks(collector, young, [2.5 * MB, 0.5 * MB, 0.5 * MB, 2.5 * MB, 0.5 * MB, 2.5 * MB]);
    expect(young.scavengesInTasks).toBe(0);
  });

  it('forgets sizes past its window', () => {
    const young = fakeYoung(4 * MB);
    const collector = new YoungCollector(young.space, young.collect, 2);
    runTasks(collector, young, [3 * MB]);
    expect(young.collections).toBe(1);
    // Twelve small tasks (2.4 MB): once the 3 MB task is out of the window of 2, none needs a collection.
    runTasks(collector, young, Array(12).fill(0.2 * MB));
    expect(young.collections).toBe(1);
  });

  it('learns nothing from a task during which V8 scavenged (less in use at its end than at its start)', () => {
    const readings: YoungSpace[] = [
      { used: 3 * MB, available: 1 * MB },
      { used: 0.5 * MB, available: 3.5 * MB },
    ];
    let collected = 0;
    const collector = new YoungCollector(
      () => readings.shift() ?? { used: 0, available: 4 * MB },
      () => {
        collected += 1;
      },
    );
    collector.taskStarts();
    collector.taskEnded();
    expect(collected).toBe(0);
  });
});

describe('YoungCollector in a V8 isolate with the image’s 4 MB semi-spaces', () => {
  const fixture = fileURLToPath(new URL('../test/fixtures/young-tasks.ts', import.meta.url));
  const run = (mode: 'on' | 'off') => {
    const child = spawnSync(process.execPath, ['--max-semi-space-size=4', fixture, mode], {
      encoding: 'utf8',
    });
    expect(child.status, child.stderr).toBe(0);
    return JSON.parse(child.stdout) as { inTasks: number; betweenTasks: number; collections: number };
  };

  it('moves the scavenges that would copy a live request out of the tasks', () => {
    const off = run('off');
    // Without it, the tasks' own allocations fill the young generation while a task holds its tree.
    expect(off.inTasks).toBeGreaterThan(5);
    const on = run('on');
    expect(on.inTasks).toBe(0);
    expect(on.collections).toBeGreaterThan(0);
    expect(on.betweenTasks).toBe(on.collections);
  });
});
