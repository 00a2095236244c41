// P173 over HTTP against the real verification service: a passport dated beyond the clock skew in the future
// verifies, but the key directory does not take it as the agent's newest. Otherwise whoever holds a key (a thief
// included) could pin a year-2999 passport, and no later rotation by the real owner would ever count.
import {
  type BundleKeySet,
  buildSignedBundle,
  createNativeBackend,
  generateBundleKeys,
  keyEntry,
} from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../../src/records/test-support.ts';
import { startVerifierWithRecords, type VerifierWithRecords } from './verifier-with-records.ts';

const backend = createNativeBackend();
const MINUTE = 60_000;

describe.each(dialectsUnderTest())('a far-future passport through POST /verify on %s', (dialect) => {
  let verifier: VerifierWithRecords;
  beforeAll(async () => {
    verifier = await startVerifierWithRecords(dialect, 'v2-future-passport');
  });
  afterAll(async () => {
    await verifier?.close();
  });

  const agent = generateBundleKeys(backend);
  const principal = generateBundleKeys(backend);
  const spare = generateBundleKeys(backend, { pq: false });
  const thiefs = generateBundleKeys(backend, { pq: false });
  const successor = generateBundleKeys(backend, { pq: false });
  const start = Date.now() - 30 * MINUTE;

  /** The agent's bundle made at `now`, its passport dated `createdAt` and also listing `extra` keys. */
  const bundle = (now: Date, createdAt: string, extra: { keys: BundleKeySet; status: string }[]) =>
    buildSignedBundle({
      keys: { agent, principal },
      now,
      hooks: {
        payloads: (payloads) => {
          const passport = payloads.agent_passport as Json;
          passport['created_at'] = createdAt;
          for (const { keys, status } of extra) {
            (passport['keys'] as Json[]).push({
              ...keyEntry(keys.classical, now.toISOString(), null),
              status,
            });
          }
        },
      },
    });
  const verify = async (built: ReturnType<typeof buildSignedBundle>) => {
    const { json } = await verifier.post('/verify', { signed_bundle: built.signed_bundle });
    expect(json['verified'], JSON.stringify(json)).toBe(true);
  };

  it('a passport dated in 2999, signed with a stolen key, neither rotates nor blocks the owner’s rotation', async () => {
    const t0 = new Date(start);
    await verify(bundle(t0, t0.toISOString(), [{ keys: spare, status: 'active' }]));
    expect(await verifier.keyStatusOnce(spare.classical.kid, 200)).toBe(200);

    // The thief holds the agent's key: a passport dated 2999 listing the thief's key and dropping the spare.
    const t1 = new Date(start + 5 * MINUTE);
    await verify(bundle(t1, '2999-01-01T00:00:00.000Z', [{ keys: thiefs, status: 'active' }]));
    await new Promise((r) => setTimeout(r, 500));
    expect(await verifier.keyStatus(thiefs.classical.kid)).toBe(404);
    expect(await verifier.keyStatus(spare.classical.kid)).toBe(200);

    // The owner's rotation dated now still counts: the successor binds, the spare is dropped.
    const t2 = new Date(start + 10 * MINUTE);
    await verify(bundle(t2, t2.toISOString(), [{ keys: successor, status: 'active' }]));
    expect(await verifier.keyStatusOnce(successor.classical.kid, 200)).toBe(200);
    expect(await verifier.keyStatusOnce(spare.classical.kid, 404)).toBe(404);
    expect(await verifier.keyStatus(thiefs.classical.kid)).toBe(404);
  });

  it('a passport a few seconds ahead (within the clock skew) still rotates', async () => {
    const other = generateBundleKeys(backend);
    const later = generateBundleKeys(backend, { pq: false });
    const now = new Date();
    const own = (createdAt: string, extra: BundleKeySet[]) =>
      buildSignedBundle({
        keys: { agent: other, principal },
        now,
        hooks: {
          payloads: (payloads) => {
            const passport = payloads.agent_passport as Json;
            passport['created_at'] = createdAt;
            for (const keys of extra) {
              (passport['keys'] as Json[]).push({
                ...keyEntry(keys.classical, now.toISOString(), null),
                status: 'active',
              });
            }
          },
        },
      });
    await verify(own(new Date(now.getTime() - MINUTE).toISOString(), []));
    expect(await verifier.keyStatusOnce(other.classical.kid, 200)).toBe(200);
    await verify(own(new Date(now.getTime() + 30_000).toISOString(), [later]));
    expect(await verifier.keyStatusOnce(later.classical.kid, 200)).toBe(200);
  });
});
