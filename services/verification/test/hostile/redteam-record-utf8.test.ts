// P316 over HTTP against the real verification service: a /v2 record signed over text holding U+FFFD, sent with the
// single byte FF in its place. /verify (P220's rule), the CLI (P232) and the console refuse bytes that are not UTF-8,
// since a signature then holds over a text the request does not contain; the JSON parser every other route uses
// (service-kit's wire formats) read the body leniently, FF as U+FFFD, and stored the record as verified.
import { buildSignedBundle, createNativeBackend, PROFILES, signRecord } from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { replacementCharAsFF } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, type Json, withFields } from '../../src/records/test-support.ts';
import { partyOf, startVerifierWithRecords, type VerifierWithRecords } from './verifier-with-records.ts';

const backend = createNativeBackend();

async function postBytes(
  url: string,
  path: string,
  bytes: Uint8Array,
): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: bytes,
  });
  return { status: res.status, json: (await res.json()) as Json };
}

describe.each(dialectsUnderTest())('P316: a /v2 record body that is not UTF-8, on %s', (dialect) => {
  let verifier: VerifierWithRecords;
  let party: ReturnType<typeof partyOf>;
  beforeAll(async () => {
    verifier = await startVerifierWithRecords(dialect, 'redteam-record-utf8');
    party = partyOf(buildSignedBundle({ now: new Date(Date.now() - 60_000) }));
    const verified = await verifier.post('/verify', { signed_bundle: party.built.signed_bundle });
    expect(verified.json['verified']).toBe(true);
    expect(await verifier.keyStatusOnce(party.agentKeys.classical.kid, 200)).toBe(200);
  });
  afterAll(async () => {
    await verifier?.close();
  });

  /** The agent's commissioning certificate, its `purpose` holding U+FFFD, signed once by the agent's own key. */
  let signed: Json | undefined;
  const certificate = () =>
    (signed ??= signRecord(
      backend,
      PROFILES.proto,
      'commissioning_certificate',
      withFields(example('commissioning_certificate'), {
        agent_id: party.agentId,
        human_id: party.humanId,
        purpose: 'Reconcile invoices \uFFFD flag mismatches',
      }),
      party.agentKeys,
    ));

  it('the record with FF where its signed text has U+FFFD: 400 PROTO-E001, nothing stored', async () => {
    const bytes = replacementCharAsFF(Buffer.from(JSON.stringify(certificate()), 'utf8'));
    expect(bytes.includes(0xff)).toBe(true);
    const answer = await postBytes(verifier.url, '/v2/lifecycle/commission', bytes);
    expect(answer.status, JSON.stringify(answer.json).slice(0, 300)).toBe(400);
    expect(answer.json['error']).toEqual(
      expect.objectContaining({ code: 'PROTO-E001', message: 'Request body is not valid UTF-8' }),
    );
    const stored = await fetch(`${verifier.url}/v2/lifecycle/commission/${party.agentId}`);
    expect(stored.status).toBe(404);
  });

  it('the record as signed, U+FFFD and all, is stored verified (the control)', async () => {
    const answer = await postBytes(
      verifier.url,
      '/v2/lifecycle/commission',
      Buffer.from(JSON.stringify(certificate()), 'utf8'),
    );
    expect(answer.status, JSON.stringify(answer.json).slice(0, 300)).toBe(201);
    expect((answer.json['signature'] as Json)['status']).toBe('verified');
  });
});
