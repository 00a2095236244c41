// Tests that lifecycle writes stay atomic when separate OS processes race on one database.
// Covers D16 (transitions atomic under concurrency) and docs/architecture.md §4 (several processes or replicas, one store).
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TransitionResult, VitalityAppendResult } from './repositories/lifecycle.ts';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from './testing.ts';

const MACHINE = {
  commissioned: ['active'],
  active: ['declining', 'decommissioned'],
  declining: ['decommissioned'],
};
const CHILD = fileURLToPath(new URL('./testing-race-child.ts', import.meta.url));

interface Outcome {
  agentId: string;
  transition: TransitionResult;
  vitality: VitalityAppendResult;
}

function startChild(job: unknown): { child: ChildProcess; ready: Promise<void>; done: Promise<Outcome[]> } {
  const child = spawn(process.execPath, [CHILD, JSON.stringify(job)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    if (stdout.startsWith('ready\n')) markReady();
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const done = once(child, 'exit').then(([code]) => {
    if (code !== 0) throw new Error(`race child exited with ${String(code)}: ${stderr}`);
    return JSON.parse(stdout.slice('ready\n'.length)) as Outcome[];
  });
  return { child, ready: Promise.race([ready, done.then(() => undefined)]), done };
}

describe.each(dialectsUnderTest())('lifecycle across processes on %s', (dialect) => {
  let target: StoreTarget;

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'processes');
  });
  afterAll(async () => {
    await target.cleanup();
  });

  it('lets exactly one process win each transition and each vitality append', async () => {
    const store = await target.open();
    const agents = Array.from({ length: 15 }, (_, i) => `agent-proc-${i}`);
    for (const agentId of agents) {
      await store.lifecycle.commission(agentId);
      await store.lifecycle.transition(agentId, 'active', { allowed: MACHINE });
    }
    const children = [
      startChild({
        options: target.options,
        agents,
        to: 'declining',
        reportHash: 'sha256:from-a',
        machine: MACHINE,
      }),
      startChild({
        options: target.options,
        agents,
        to: 'decommissioned',
        reportHash: 'sha256:from-b',
        machine: MACHINE,
      }),
    ];
    await Promise.all(children.map((c) => c.ready));
    for (const { child } of children) child.stdin?.write('go\n');
    const [a, b] = await Promise.all(children.map((c) => c.done));

    for (const [i, agentId] of agents.entries()) {
      const fromA = a?.[i];
      const fromB = b?.[i];
      expect(fromA?.agentId).toBe(agentId);
      expect([fromA?.transition.ok, fromB?.transition.ok].filter(Boolean)).toHaveLength(1);
      expect([fromA?.vitality.ok, fromB?.vitality.ok].filter(Boolean)).toHaveLength(1);
      const status = await store.lifecycle.get(agentId);
      expect(status?.state).toBe(fromA?.transition.ok ? 'declining' : 'decommissioned');
      expect(status?.last_vitality_hash).toBe(fromA?.vitality.ok ? 'sha256:from-a' : 'sha256:from-b');
      expect(status?.history_count).toBe(3);
    }
  });
});
