// P578: a verification thread of POST /emergency-tokens stops in the middle of a registration (out of memory, killed).
// No bundle is known to crash a thread, and no test-only hook is built into the service: the test takes the threads
// the service starts from Node's own `worker_threads` diagnostics channel (published for every Worker created in the
// process) and terminates the one verifying, once /metrics shows the registration on it. Real revocation service over
// HTTP, real SQLite, real threads. The caller gets a 5xx JSON error with a code, nothing is registered (the same
// bundle's next registration is a first one, `created: true`), and the next registration is served by a new thread.
// P613: a body that needs more heap than EMERGENCY_VERIFY_THREAD_HEAP_MB ends its thread alone, the same way.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Worker } from 'node:worker_threads';
import { sampleBundle } from '@proto/verification/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, newEmergencySecret, postWithoutToken, rprHashOf } from '../../src/test-support.ts';
import { postAsIs, serviceForDescribe } from './test-helpers.ts';

const JURISDICTION = 'US'; // the builder writes RPRs for US

/** Node publishes `{ worker }` on this channel for every Worker the process creates. */
const WORKER_CHANNEL = 'worker_threads';

function sample(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

describe('P578: a verification thread that dies under a registration', () => {
  const service = serviceForDescribe({ JURISDICTION, EMERGENCY_VERIFY_WORKERS: '1' });
  const started: Worker[] = [];
  const onWorker = (message: unknown) => started.push((message as { worker: Worker }).worker);
  beforeAll(() => subscribe(WORKER_CHANNEL, onWorker));
  afterAll(() => unsubscribe(WORKER_CHANNEL, onWorker));

  /** A maximum-size bundle (about 950 KB: a few hundred ms on its thread) of an agent the service attested. */
  async function attestedLargest() {
    const built = sampleBundle({
      tier: 'maximum',
      entries: 150,
      emergencyRevocationToken: newEmergencySecret().token,
    });
    const attest = await call(service(), 'POST', '/attest', {
      rpr_hash: rprHashOf(built),
      agent_id: built.agentId,
    });
    expect(attest.status, JSON.stringify(attest.json)).toBe(200);
    return built;
  }
  const register = (signedBundle: unknown) =>
    postWithoutToken(service(), '/emergency-tokens', { signed_bundle: signedBundle });

  it('answers 500 with PROTO-E900, registers nothing, and serves the next registration', async () => {
    // A first registration starts the thread, so the one below goes straight onto a thread that is running.
    const warmUp = await attestedLargest();
    expect((await register(warmUp.signed_bundle)).status).toBe(201);
    const thread = started.find((worker) => worker.threadId !== -1);
    expect(thread, 'the service started no thread').toBeDefined();

    const victim = await attestedLargest();
    const answer = register(victim.signed_bundle);
    // Once the registration is on the thread (the service's own gauge says so), the thread dies.
    for (;;) {
      const metrics = await (await fetch(`${service().url}/metrics`)).text();
      if (sample(metrics, 'proto_emergency_verify_running') === 1) break;
    }
    await thread?.terminate();
    const died = await answer;
    expect(died.status, JSON.stringify(died.json)).toBe(500);
    const error = died.json['error'] as { code: string; message: string; retryable: boolean };
    expect(error.code).toBe('PROTO-E900');
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/nothing was registered/);

    // Nothing was stored: the same bundle registers now as a first registration, on a new thread.
    const again = await register(victim.signed_bundle);
    expect(again.status, JSON.stringify(again.json)).toBe(201);
    expect(again.json['created']).toBe(true);
    expect(again.json['agent_id']).toBe(victim.agentId);
    const metrics = await (await fetch(`${service().url}/metrics`)).text();
    expect(sample(metrics, 'proto_emergency_verify_thread_failures_total')).toBe(1);
  }, 120_000);
});

describe('P613: a registration whose thread passes EMERGENCY_VERIFY_THREAD_HEAP_MB', () => {
  const service = serviceForDescribe({
    JURISDICTION,
    EMERGENCY_VERIFY_WORKERS: '1',
    EMERGENCY_VERIFY_THREAD_HEAP_MB: '16',
  });
  /** Just under the 1 MiB body limit: 349,000 empty arrays, which the thread parses into as many objects. */
  const manyArrays = `{"signed_bundle":[${Array(349_000).fill('[]').join(',')}]}`;

  it('answers 500 PROTO-E900, counts a thread failure, and the next registration is served', async () => {
    const heavy = await postAsIs(`${service().url}/emergency-tokens`, Buffer.from(manyArrays), {
      'content-type': 'application/json',
    });
    expect(heavy.status, heavy.text).toBe(500);
    expect((JSON.parse(heavy.text) as { error: { code: string } }).error.code).toBe('PROTO-E900');
    expect(heavy.text).not.toMatch(/heap|memory/i);

    const built = sampleBundle({ emergencyRevocationToken: newEmergencySecret().token });
    const attest = await call(service(), 'POST', '/attest', {
      rpr_hash: rprHashOf(built),
      agent_id: built.agentId,
    });
    expect(attest.status, JSON.stringify(attest.json)).toBe(200);
    const next = await postWithoutToken(service(), '/emergency-tokens', {
      signed_bundle: built.signed_bundle,
    });
    expect(next.status, JSON.stringify(next.json)).toBe(201);
    const metrics = await (await fetch(`${service().url}/metrics`)).text();
    expect(sample(metrics, 'proto_emergency_verify_thread_failures_total')).toBe(1);
  }, 120_000);
});
