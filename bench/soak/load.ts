// The soak's mixed load and its ledger of acknowledged writes and verdicts: verify (valid and invalid
// bundles), log appends, anchors, /v2 record writes and revocations (issue 16 item 5).
import { randomBytes } from 'node:crypto';
import { buildSignedBundle } from '@proto/core';
import type { Stack } from './stack.ts';

export interface Ledger {
  logEntries: Array<{ hash: string; index: number }>;
  anchors: string[];
  records: string[];
  revocations: string[];
  verify: {
    validOk: number;
    invalidOk: number;
    /** A valid bundle answered verified:false with only retryable codes (allowed during a fault). */
    retryableFalse: number;
    /** No verdict: connection refused, 5xx, 429, a retryable error body. */
    unavailable: number;
    violations: string[];
  };
  /** Requests that got no acknowledgement (the write may or may not have happened: never counted). */
  unacknowledged: Record<string, number>;
}

export function newLedger(): Ledger {
  return {
    logEntries: [],
    anchors: [],
    records: [],
    revocations: [],
    verify: { validOk: 0, invalidOk: 0, retryableFalse: 0, unavailable: 0, violations: [] },
    unacknowledged: { log: 0, anchor: 0, record: 0, revocation: 0 },
  };
}

const randomHash = () => `sha256:${randomBytes(32).toString('hex')}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** POST with a JSON body; undefined when there is no HTTP answer at all (refused, reset, timed out). */
async function post(
  url: string,
  body: unknown,
  token?: string,
): Promise<{ status: number; json: Record<string, unknown> } | undefined> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await response.text();
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // a non-JSON answer is judged by its status alone
    }
    return { status: response.status, json };
  } catch {
    return undefined;
  }
}

export function sampleBundles(): { valid: unknown[]; invalid: unknown[] } {
  const valid = [0, 1, 2].map(() => buildSignedBundle().signed_bundle);
  // Tampered after signing: the principal record no longer matches the manifest's rpr_hash.
  const invalid = valid.map((bundle) => {
    const copy = structuredClone(bundle) as { bundle: Record<string, { payload: Record<string, unknown> }> };
    copy.bundle['responsible_principal_record']!.payload['legal_name'] = 'Someone Else';
    return copy;
  });
  return { valid, invalid };
}

/** Judges one /verify answer: a fault may make a verdict unavailable, never change it. */
export function judgeVerify(
  ledger: Ledger,
  expectValid: boolean,
  answer: { status: number; json: Record<string, unknown> } | undefined,
): void {
  const v = ledger.verify;
  if (answer === undefined || answer.status >= 500 || answer.status === 429) {
    v.unavailable++;
    return;
  }
  const verified = answer.json['verified'];
  if (typeof verified !== 'boolean') {
    v.violations.push(`${expectValid ? 'valid' : 'invalid'} bundle: HTTP ${answer.status} without a verdict`);
    return;
  }
  if (!expectValid) {
    if (verified) v.violations.push('an invalid bundle was reported valid');
    else v.invalidOk++;
    return;
  }
  if (verified) {
    v.validOk++;
    return;
  }
  const details = (answer.json['error_details'] as Array<{ code?: string; retryable?: boolean }>) ?? [];
  if (details.length > 0 && details.every((d) => d.retryable === true)) v.retryableFalse++;
  else
    v.violations.push(
      `a valid bundle was reported invalid: ${details.map((d) => `${d.code}${d.retryable ? '(retryable)' : ''}`).join(',')}`,
    );
}

export interface LoadOptions {
  readonly stack: Stack;
  readonly ledger: Ledger;
  readonly until: () => boolean;
  readonly bundles: { valid: unknown[]; invalid: unknown[] };
}

/** Runs the loops until `until()` says stop; each loop paces itself (the machine is shared). */
export async function runLoad(options: LoadOptions): Promise<void> {
  const { stack, ledger, until, bundles } = options;
  const token = stack.operatorToken;
  let n = 0;
  const loop = async (pauseMs: number, step: () => Promise<void>) => {
    while (!until()) {
      await step();
      await sleep(pauseMs);
    }
  };
  const verify = async () => {
    const expectValid = n++ % 2 === 0;
    const list = expectValid ? bundles.valid : bundles.invalid;
    const answer = await post(`${stack.url('verification')}/verify`, {
      signed_bundle: list[n % list.length],
    });
    judgeVerify(ledger, expectValid, answer);
  };
  const append = async () => {
    const hash = randomHash();
    const answer = await post(`${stack.url('transparency-log')}/add`, { bundle_hash: hash }, token);
    if (answer?.status === 201 && typeof answer.json['log_index'] === 'number')
      ledger.logEntries.push({ hash, index: answer.json['log_index'] });
    else ledger.unacknowledged['log']!++;
  };
  const anchor = async () => {
    const hash = randomHash();
    const answer = await post(`${stack.url('anchor')}/anchor`, { bundle_hash: hash }, token);
    if (answer !== undefined && (answer.status === 200 || answer.status === 202)) ledger.anchors.push(hash);
    else ledger.unacknowledged['anchor']!++;
  };
  const record = async () => {
    const id = `dispute:soak-${randomBytes(8).toString('hex')}`;
    const answer = await post(
      `${stack.url('verification')}/v2/dispute/record`,
      {
        ...DISPUTE_RECORD,
        dispute_id: id,
        timestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      },
      token,
    ); // an administrative write (P26): the soak holds the operator token, not the agents' keys
    if (answer?.status === 201) ledger.records.push(id);
    else ledger.unacknowledged['record']!++;
  };
  const revoke = async () => {
    const agent = `agent:soak-${randomBytes(8).toString('hex')}`;
    const answer = await post(
      `${stack.url('revocation')}/revocations`,
      { agent_id: agent, reason: 'soak test' },
      token,
    );
    if (answer?.status === 201) ledger.revocations.push(agent);
    else ledger.unacknowledged['revocation']!++;
  };
  await Promise.all([
    loop(20, verify),
    loop(20, verify),
    loop(10, append),
    loop(10, append),
    loop(20, anchor),
    loop(50, record),
    loop(500, revoke),
  ]);
}

/** A /v2 dispute record (its signatures are not verified by the service: SPEC.md records). */
const DISPUTE_RECORD = {
  dcp_version: '2.0',
  session_nonce: '5f3c9a0e1d2b4c6a8e7f90123456789abcdef0123456789abcdef0123456789a',
  initiator_agent_id: 'agent:soak-initiator',
  respondent_agent_id: 'agent:soak-respondent',
  dispute_type: 'resource_conflict',
  evidence_hashes: ['sha256:7777777777777777777777777777777777777777777777777777777777777777'],
  escalation_level: 'direct_negotiation',
  status: 'open',
  composite_sig: {
    classical: { alg: 'ed25519', kid: '0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f', sig_b64: 'c29hay1jbGFzc2ljYWw=' },
    pq: { alg: 'ml-dsa-65', kid: '9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d', sig_b64: 'c29hay1wcQ==' },
    binding: 'pq_over_classical',
  },
};
