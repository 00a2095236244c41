// Hostile suite, P228: a bundle whose schema fails in every one of 400,000 array items costs a verification thread
// no more than a valid bundle of its size. The yes/no pass stops at the first error; the second pass that names
// every issue (allErrors) made an error object for each item, twice, and the answer still named eight of them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postVerify, type RunningApp, sampleBundle, startApp } from '../../src/test-support.ts';

let app: RunningApp;

beforeAll(async () => {
  app = await startApp({
    VERIFY_WORKERS: '1',
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    // Every round is verified afresh: no cached analysis answers a repeated body.
    VERIFICATION_CACHE_MAX_ENTRIES: '0',
    MAX_EVENT_LOOP_DELAY_MS: '0',
  });
});
afterAll(() => app.close());

/** CPU seconds of this process so far: the service runs in it, its main thread and verification threads alike. */
function processCpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

const ITEMS = 400_000;

describe('P228: schema issues cost a thread time bounded by the answer, not by the number of wrong items', () => {
  it('an intent whose data_classes holds 400,000 numbers (an 800 KB body) is refused within seconds, its first issue named', async () => {
    const { signed_bundle } = sampleBundle({ tier: 'routine', classicalOnly: true });
    const bundle = signed_bundle['bundle'] as Record<string, Record<string, Record<string, unknown>>>;
    const intent = bundle['intent']!['payload']!;
    const wrongItems = new Array(ITEMS).fill(1);
    // The attack: every one of the 400,000 items is wrong. The same bytes where one issue names the whole array (a
    // member that must be a string) are the control: read, parsed and validated alike, but with one error.
    const attack = JSON.stringify({ signed_bundle: { ...signed_bundle } }).replace(
      JSON.stringify(intent['data_classes']),
      JSON.stringify(wrongItems),
    );
    const control = JSON.stringify({ signed_bundle: { ...signed_bundle } }).replace(
      JSON.stringify(intent['estimated_impact']),
      JSON.stringify(wrongItems),
    );
    // A first request warms the thread (its schemas compiled), as a running service's is.
    const warm = await postVerify(app.url, {
      signed_bundle: sampleBundle({ tier: 'routine' }).signed_bundle,
    });
    expect(warm.status).toBe(200);

    /** The CPU one request costs the service (not the wall clock, which a loaded machine moves). */
    const cpuOf = async (body: string) => {
      const before = processCpuSeconds();
      const answer = await postVerify(app.url, body);
      return { answer, cpu: processCpuSeconds() - before };
    };
    const attackCpu: number[] = [];
    const controlCpu: number[] = [];
    for (let round = 0; round < 3; round++) {
      const attacked = await cpuOf(attack);
      const { status, json } = attacked.answer;
      expect(status).toBe(200);
      expect(json['verified']).toBe(false);
      expect((json['checks'] as Record<string, string>)['schema']).toBe('fail');
      const details = json['error_details'] as { code: string; message: string }[];
      expect(details[0]!.code).toBe('PROTO-E002');
      expect(details[0]!.message).toMatch(/^intent\.payload \(intent\): \/data_classes\/0 must be string/);
      attackCpu.push(attacked.cpu);
      const controlled = await cpuOf(control);
      expect((controlled.answer.json['checks'] as Record<string, string>)['schema']).toBe('fail');
      controlCpu.push(controlled.cpu);
    }
    // Before P228 the attack cost ×58 its control (1.15–1.41 s of CPU against 0.02–0.08 s, on a fast host); now about
    // the same (×1.1). The least of three rounds each, so a neighbour's burst does not count.
    expect(Math.min(...attackCpu) / Math.min(...controlCpu)).toBeLessThan(3);
  }, 120_000);
});
