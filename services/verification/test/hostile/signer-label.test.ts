// P280 over HTTP against the real verification service: `signature.signer` ({type, id} and V2 `kids`) is covered
// by no signature (PROTOCOL §6.3 "Unsigned, unchecked metadata", V1 likewise), so anyone who relays a valid bundle
// can re-label who "signed" it. The verdict must not stay silent about a label that names someone else than the
// bundle's signed parties: a reader of `verified: true` who then reads the label would credit the wrong person.
import { buildSignedBundle } from '@proto/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postVerify, type RunningApp, startApp } from '../../src/test-support.ts';

type Json = Record<string, unknown>;

let app: RunningApp;
beforeAll(async () => {
  app = await startApp({ VERIFY_RATE_LIMIT_PER_MINUTE: '0' });
});
afterAll(() => app?.close());

const MALLORY = 'did:human:mallory-0001';

/** A builder bundle in the SDK shape (its signature names a signer), and its principal's and agent's ids. */
function built(version: '1.0' | '2.0') {
  const signed = buildSignedBundle({ version, shape: 'sdk', entries: 2 }).signed_bundle as Json;
  const bundle = signed['bundle'] as Json;
  const payload = (name: string) =>
    (version === '2.0' ? (bundle[name] as Json)['payload'] : bundle[name]) as Json;
  return {
    signed,
    humanId: payload('responsible_principal_record')['human_id'] as string,
    agentId: payload('agent_passport')['agent_id'] as string,
  };
}

function relabel(signed: Json, label: { type?: string; id?: string }): Json {
  const copy = structuredClone(signed);
  const signer = (copy['signature'] as Json)['signer'] as Json;
  Object.assign(signer, label);
  return copy;
}

function signerWarnings(answer: Json): string[] {
  return ((answer['warnings'] as string[] | undefined) ?? []).filter((w) => w.includes('signature.signer'));
}

describe('P280: a V2 bundle whose unsigned signer label is changed', () => {
  const version = '2.0';
  it('the builder bundle verifies with no signer warning (the control: its label names its principal)', async () => {
    const { signed, humanId } = built(version);
    expect(((signed['signature'] as Json)['signer'] as Json)['id']).toBe(humanId);
    const answer = await postVerify(app.url, { signed_bundle: signed });
    expect(answer.json['verified'], JSON.stringify(answer.json)).toBe(true);
    expect(signerWarnings(answer.json)).toEqual([]);
  });

  it('a human label naming another human: still verified (the signatures hold), with a warning naming both', async () => {
    const { signed, humanId } = built(version);
    const answer = await postVerify(app.url, { signed_bundle: relabel(signed, { id: MALLORY }) });
    expect(answer.status).toBe(200);
    expect(answer.json['verified'], JSON.stringify(answer.json)).toBe(true);
    const warnings = signerWarnings(answer.json);
    expect(warnings, JSON.stringify(answer.json)).toHaveLength(1);
    expect(warnings[0]).toContain(MALLORY);
    expect(warnings[0]).toContain(humanId);
    expect(warnings[0]).toContain('covered by no signature');
  });

  it("a human label naming the bundle's agent: a warning (the agent is no human)", async () => {
    const { signed, agentId } = built(version);
    const answer = await postVerify(app.url, { signed_bundle: relabel(signed, { id: agentId }) });
    expect(answer.json['verified']).toBe(true);
    expect(signerWarnings(answer.json), JSON.stringify(answer.json)).toHaveLength(1);
  });

  it('an organization label naming no party of the bundle: a warning', async () => {
    const { signed } = built(version);
    const answer = await postVerify(app.url, {
      signed_bundle: relabel(signed, { type: 'organization', id: 'Acme Bank plc' }),
    });
    expect(answer.json['verified']).toBe(true);
    const warnings = signerWarnings(answer.json);
    expect(warnings, JSON.stringify(answer.json)).toHaveLength(1);
    expect(warnings[0]).toContain('Acme Bank plc');
  });

  it('the same relabelled bytes answer the same warning from the verdict cache (a hit)', async () => {
    const { signed } = built(version);
    const body = { signed_bundle: relabel(signed, { id: MALLORY }) };
    const first = await postVerify(app.url, body);
    const second = await postVerify(app.url, body);
    expect(second.json['warnings']).toEqual(first.json['warnings']);
    expect(signerWarnings(second.json)).toHaveLength(1);
  });
});

describe('P280: a V1 bundle whose unsigned signer label is changed', () => {
  // D12 gives a V1 answer no `warnings`: the label cannot be flagged there, so the answer must not carry it at all.
  it('answers exactly as for the original bundle, and never repeats the label', async () => {
    const { signed } = built('1.0');
    const original = await postVerify(app.url, { signed_bundle: signed });
    const relabelled = await postVerify(app.url, { signed_bundle: relabel(signed, { id: MALLORY }) });
    expect(original.json['verified']).toBe(true);
    expect(relabelled.json).toEqual(original.json);
    expect(JSON.stringify(relabelled.json)).not.toContain('mallory');
  });
});
