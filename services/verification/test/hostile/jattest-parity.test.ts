// P435–P437 (brief "jattest"): a request's `jurisdiction_attestation` gets one verdict from core's `verify(request)`,
// POST /verify and /verify/batch with no ATTESTATION_TRUSTED_KEYS, and `proto verify` (FILE and --batch) with no
// --attestation-key. None of them holds the issuer's keys (PROTOCOL §9.6: the issuer signs), so none can pass one;
// each fails one the bundle or the clock contradicts (malformed, another agent, RPR or jurisdiction, expired, dated
// in the future) and answers one that holds `attestation: skipped` with a "not checked" warning.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildSignedBundle,
  createVerifier,
  selectCryptoBackend,
  signAttestation,
  type UnsignedAttestation,
} from '@proto/core';
import { runProcess, tempDirSync } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/test-support.ts';

const CLI = fileURLToPath(new URL('../../../../packages/cli/src/main.ts', import.meta.url));
const work = tempDirSync('jattest-parity');

let service: RunningApp;
beforeAll(async () => {
  // No ATTESTATION_TRUSTED_KEYS (the default): the service has no source for the attestation's signature.
  service = await startApp({ VERIFY_RATE_LIMIT_PER_MINUTE: '0', VERIFY_WORKERS: '1' });
}, 60_000);
afterAll(async () => {
  await service?.close();
  work.remove();
});

const built = buildSignedBundle({ tier: 'routine', entries: 2 });
const other = buildSignedBundle({ tier: 'routine', entries: 2 });
const parts = (b: typeof built) => b.signed_bundle['bundle'] as Record<string, Record<string, unknown>>;
const agentOf = (b: typeof built) =>
  (parts(b)['agent_passport'] as { payload: { agent_id: string } }).payload.agent_id;
const rprOf = (b: typeof built) => (parts(b)['manifest'] as { rpr_hash: string }).rpr_hash;
const issuer = selectCryptoBackend().generateKeyPair('ed25519');
const now = Date.now();
const HOUR = 3_600_000;
const base: UnsignedAttestation = {
  issuer: 'did:web:attest.example.us',
  jurisdiction: 'US', // the builder's RPRs are for US
  rpr_hash: rprOf(built),
  agent_id: agentOf(built),
  attested_at: new Date(now - 60_000).toISOString(),
  expires_at: new Date(now + HOUR).toISOString(),
};
function sign(fields: Partial<UnsignedAttestation>) {
  const signed = signAttestation({ ...base, ...fields }, issuer.secretKey);
  if (!signed.ok) throw new Error(signed.error.message);
  return signed.value;
}
const at = (ms: number) => new Date(now + ms).toISOString();

type Answer = {
  verified: boolean;
  checks: Record<string, string>;
  warnings?: string[];
  error_details?: { code: string; check: string; message: string }[];
};
const cli = (args: readonly string[]) => runProcess(process.execPath, [CLI, ...args], { input: '' });
function file(name: string, content: string): string {
  const where = path.join(work.dir, name);
  writeFileSync(where, content);
  return where;
}
const core = (() => {
  const made = createVerifier({});
  if (!made.ok) throw new Error(made.error.message);
  return made.value;
})();

/** What must agree: the verdict, the attestation check, its code, and whether it is said to be unchecked. */
const gist = (a: Answer) => ({
  verified: a.verified,
  attestation: a.checks['attestation'],
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
  ] as const)('%s', async (name, make, code) => {
    const expected = {
      verified: code === undefined,
      attestation: code === undefined ? 'skipped' : 'fail',
      code,
      unchecked: code === undefined,
    };
    const request = JSON.stringify({ signed_bundle: built.signed_bundle, jurisdiction_attestation: make() });

    expect(gist(core.verify(JSON.parse(request))), 'core').toEqual(expected);

    const http = await fetch(`${service.url}/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: request,
    });
    const served = (await http.json()) as Answer;
    expect(gist(served), `POST /verify ${JSON.stringify(served)}`).toEqual(expected);

    const batch = await fetch(`${service.url}/verify/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: `${request}\n`,
    });
    const line = JSON.parse((await batch.text()).trim()) as Answer;
    expect(gist(line), `POST /verify/batch ${JSON.stringify(line)}`).toEqual(expected);

    const slug = name.replace(/[^a-z]+/g, '-');
    const single = await cli(['verify', '--json', file(`${slug}.json`, request)]);
    expect(gist(JSON.parse(single.stdout) as Answer), `proto verify ${single.stdout}`).toEqual(expected);
    expect(single.code).toBe(code === undefined ? 0 : 1);

    const many = await cli(['verify', '--batch', file(`${slug}-batch.json`, request)]);
    expect(gist(JSON.parse(many.stdout.trim()) as Answer), `--batch ${many.stdout}`).toEqual(expected);
    expect(many.code).toBe(code === undefined ? 0 : 1);
  });
});
