// POST /verify/batch with several bundles per pool task (VERIFY_BATCH_GROUP, P109), over a listening
// server: answers in order and equal to /verify's, a malformed item inside a group answered alone, the
// metrics counted per bundle, not per task.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postVerify, type RunningApp, sampleBundle, startApp } from './test-support.ts';

type Sample = ReturnType<typeof sampleBundle>;
let routine: Sample;
let elevated: Sample;
let v1: Sample;
let grouped: RunningApp;

beforeAll(async () => {
  routine = sampleBundle({ tier: 'routine', entries: 3 });
  elevated = sampleBundle({ tier: 'elevated', entries: 3 });
  v1 = sampleBundle({ version: '1.0', entries: 2 });
  grouped = await startApp({
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    VERIFICATION_CACHE_MAX_ENTRIES: '0',
    VERIFY_WORKERS: '2',
    VERIFY_BATCH_GROUP: '4',
  });
});
afterAll(() => grouped.close());

const request = (s: Sample) => JSON.stringify({ signed_bundle: s.signed_bundle });

function tampered(s: Sample): string {
  const copy = structuredClone(s.signed_bundle) as { bundle: { audit_entries: Record<string, unknown>[] } };
  copy.bundle.audit_entries[0]!['outcome'] = 'something_else';
  return JSON.stringify({ signed_bundle: copy });
}

async function postNdjson(lines: readonly string[]): Promise<Record<string, unknown>[]> {
  const res = await fetch(`${grouped.url}/verify/batch`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson' },
    body: lines.join('\n'),
  });
  expect(res.status).toBe(200);
  return (await res.text())
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The sum of every sample of a labelled counter on /metrics. */
async function counterSum(name: string): Promise<number> {
  const text = await (await fetch(`${grouped.url}/metrics`)).text();
  let sum = 0;
  for (const match of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm')))
    sum += Number(match[1]);
  return sum;
}

describe('POST /verify/batch, several bundles per pool task (P109)', () => {
  it('answers every item in order, each the /verify answer, across groups and with bad items inside a group', async () => {
    // 13 items: groups of 4 (and a last one of 1), malformed and tampered items in the middle of groups.
    const items = [
      request(elevated),
      '{"signed_bundle": {',
      request(v1),
      tampered(routine),
      request(routine),
      request(v1),
      '{"no_bundle":true}',
      request(elevated),
      tampered(elevated),
      request(routine),
      '[1,2]',
      request(v1),
      request(routine),
    ];
    const lines = await postNdjson(items);
    expect(lines).toHaveLength(items.length);
    expect(lines.map((l) => l['verified'])).toEqual([
      true,
      false,
      true,
      false,
      true,
      true,
      false,
      true,
      false,
      true,
      false,
      true,
      true,
    ]);
    for (const [i, item] of items.entries())
      expect(lines[i]).toEqual((await postVerify(grouped.url, item)).json);
  });

  it('finishes a batch larger than its bytes in flight (two groups per thread of 512 KiB)', async () => {
    // 2 threads × 2 groups × 512 KiB = 2 MiB in flight at most; ~3 MB of routine-10 bundles exceeds it.
    const big = request(sampleBundle({ tier: 'routine', entries: 10 }));
    const count = Math.ceil((3 * 1024 * 1024) / big.length);
    const lines = await postNdjson(Array.from({ length: count }, () => big));
    expect(lines).toHaveLength(count);
    expect(lines.every((l) => l['verified'] === true)).toBe(true);
  }, 60_000);

  it('counts proto_verify_requests_total and proto_bundles_verified_total per bundle, not per task', async () => {
    const requestsBefore = await counterSum('proto_verify_requests_total');
    const verdictsBefore = await counterSum('proto_bundles_verified_total');
    const items = [
      ...Array.from({ length: 9 }, () => request(routine)),
      tampered(routine),
      '{"no_bundle":true}',
    ];
    const lines = await postNdjson(items);
    expect(lines.map((l) => l['verified'])).toEqual([...Array.from({ length: 9 }, () => true), false, false]);
    // Ten bundles reached a verdict (the malformed item is a 400 body, counted as an error code only).
    expect((await counterSum('proto_verify_requests_total')) - requestsBefore).toBe(10);
    expect((await counterSum('proto_bundles_verified_total')) - verdictsBefore).toBe(10);
  });
});
