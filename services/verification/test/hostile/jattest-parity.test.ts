// P435–P437 (brief "jattest"): a request's `jurisdiction_attestation` gets one verdict from core's `verify(request)`,
// POST /verify and /verify/batch with no ATTESTATION_TRUSTED_KEYS, and `proto verify` (FILE and --batch) with no
// --attestation-key. None of them holds the issuer's keys (PROTOCOL §9.6: the issuer signs), so none can pass one;
// each fails one the bundle or the clock contradicts (malformed, another agent, RPR or jurisdiction, expired, dated
// in the future) and answers one that holds `attestation: skipped` with a "not checked" warning.
import { tempDirSync } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/test-support.ts';
import { attestationSubjects, everyReader, type ReaderAnswer } from './testing/every-reader.ts';

const work = tempDirSync('jattest-parity');
const readers = everyReader(work.dir);

let service: RunningApp;
beforeAll(async () => {
  // No ATTESTATION_TRUSTED_KEYS (the default): the service has no source for the attestation's signature.
  // Shedding off: the CLI processes this file spawns beside it lag its event loop, and a 503 E702 is no verdict.
  service = await startApp({
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    VERIFY_WORKERS: '1',
    MAX_EVENT_LOOP_DELAY_MS: '0',
  });
}, 60_000);
afterAll(async () => {
  await service?.close();
  work.remove();
});

const HOUR = 3_600_000;
const { built, other, agentOf, rprOf, now, base, sign } = attestationSubjects(HOUR);
const at = (ms: number) => new Date(now + ms).toISOString();

/** What must agree: the verdict, the attestation check, its code, and whether it is said to be unchecked. */
const gist = (a: ReaderAnswer) => ({
  verified: a.verified,
  attestation: a.checks?.['attestation'],
  code: a.error_details?.find((d) => d.check === 'attestation')?.code,
  unchecked: (a.warnings ?? []).some((w) => w.startsWith('jurisdiction_attestation not checked')),
});

describe('P435–P437: one verdict on a jurisdiction_attestation with no issuer keys', () => {
  it.each([
    ['another agent', () => sign({ agent_id: agentOf(other) }), 'PROTO-E304'],
    ['another RPR', () => sign({ rpr_hash: rprOf(other) }), 'PROTO-E304'],
    ['another jurisdiction', () => sign({ jurisdiction: 'FR' }), 'PROTO-E304'],
    ['expired', () => sign({ attested_at: at(-2 * HOUR), expires_at: at(-HOUR) }), 'PROTO-E104'],
    ['dated in the future', () => sign({ attested_at: at(HOUR), expires_at: at(2 * HOUR) }), 'PROTO-E104'],
    ['malformed (no signature)', () => ({ ...base }), 'PROTO-E002'],
    ['this bundle’s own (control: nothing here can pass it)', () => sign({}), undefined],
  ] as const)('%s', async (_name, make, code) => {
    const expected = {
      verified: code === undefined,
      attestation: code === undefined ? 'skipped' : 'fail',
      code,
      unchecked: code === undefined,
    };
    const { answers, codes } = await readers.ask(
      { signed_bundle: built.signed_bundle, jurisdiction_attestation: make() },
      service,
      {},
    );
    for (const [reader, answer] of Object.entries(answers)) {
      expect(gist(answer), `${reader} ${JSON.stringify(answer)}`).toEqual(expected);
    }
    expect(codes['proto verify']).toBe(code === undefined ? 0 : 1);
    expect(codes['proto verify --batch']).toBe(code === undefined ? 0 : 1);
  });
});
