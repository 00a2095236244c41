// Child process for processes.test.ts: opens its own Store, waits for "go", then races lifecycle writes.
// Exercises docs/architecture.md §4 / D16 (atomic transitions and vitality CAS) across real OS processes.
import { once } from 'node:events';
import { openStore, type StoreOptions } from './index.ts';

interface RaceJob {
  readonly options: StoreOptions;
  readonly agents: readonly string[];
  readonly to: string;
  readonly reportHash: string;
  readonly machine: Record<string, readonly string[]>;
}

const job = JSON.parse(process.argv[2] ?? '{}') as RaceJob;
const store = await openStore(job.options);
process.stdout.write('ready\n');
await once(process.stdin, 'data');

const outcomes = await Promise.all(
  job.agents.map(async (agentId) => ({
    agentId,
    transition: await store.lifecycle.transition(agentId, job.to, {
      allowed: job.machine,
      expectedFrom: 'active',
    }),
    vitality: await store.lifecycle.appendVitality(agentId, job.reportHash, 'GENESIS'),
  })),
);
await store.close();
process.stdout.write(`${JSON.stringify(outcomes)}\n`);
process.stdin.destroy();
