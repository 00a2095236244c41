// P502 over HTTP against the real verification service: with VERIFIER_POLICY's `require_principal_signature: true`,
// a V2 bundle no key of the RPR's binding_keys signed (a stranger's, carrying another agent's copied RPR beside its
// own passport) is answered `verified: false` with PROTO-E401 under `policy`, on POST /verify and /verify/batch, JSON
// and CBOR, as core and `proto verify --policy` answer it. The principal-signed bundle still verifies.
import { borrowedRprBundle } from '@proto/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/test-support.ts';
import { ROUTES_AND_FORMATS, type VerifyPath, verifyAnswer, type WireFormat } from './verify-both-wires.ts';

type Json = Record<string, unknown>;

let app: RunningApp;
beforeAll(async () => {
  app = await startApp({
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    VERIFIER_POLICY: JSON.stringify({ default_mode: 'hybrid_preferred', require_principal_signature: true }),
  });
});
afterAll(() => app?.close());

const fixture = borrowedRprBundle();

const CASES = ROUTES_AND_FORMATS;
const answer = (path: VerifyPath, body: Json, format: WireFormat) =>
  verifyAnswer(app.url, path, body, format);

describe('P502: VERIFIER_POLICY require_principal_signature', () => {
  it.each(CASES)("POST %s (%s): the stranger's bundle fails with PROTO-E401", async (path, format) => {
    const json = await answer(path, { signed_bundle: fixture.stranger }, format);
    expect(json['verified'], JSON.stringify(json)).toBe(false);
    const details = (json['error_details'] as Json[] | undefined) ?? [];
    expect(details.map((d) => [d['code'], d['check']])).toEqual([['PROTO-E401', 'policy']]);
    expect(String(details[0]?.['message'])).toContain('require_principal_signature');
    for (const kid of fixture.strangerKids) expect(String(details[0]?.['message'])).toContain(kid);
  });

  it('P557: the capabilities document says the requirement is on', async () => {
    const res = await fetch(`${app.url}/.well-known/proto-capabilities.json`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json)['require_principal_signature']).toBe(true);
  });

  it.each(CASES)("POST %s (%s): the victim's own principal-signed bundle verifies", async (path, format) => {
    const json = await answer(path, { signed_bundle: fixture.victim.signed_bundle }, format);
    expect(json['verified'], JSON.stringify(json)).toBe(true);
  });
});
