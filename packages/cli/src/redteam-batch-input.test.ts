// P318: `proto verify --batch` reads each file as `proto verify FILE` does. Its worker threads read files with
// readFileSync(…, 'utf8') and JSON.parse: a byte that is not UTF-8 became U+FFFD (P232's attack, which `proto verify
// FILE` refuses) and a member named twice kept its last value (row c's attack, which FILE, the service and the
// console refuse), so a file the single command refuses (exit 2) was printed `verified: true`, exit 0, in a batch.
// P319: a request file's anchor_receipt and jurisdiction_attestation, which a batch cannot check, are said unchecked.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSignedBundle, selectCryptoBackend, signAttestation } from '@proto/core';
import { replacementCharAsFF, runProcessSync, tempDirSync } from '@proto/testing';
import { afterAll, describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
const work = tempDirSync('cli-redteam-batch');
afterAll(() => work.remove());

const proto = (args: readonly string[]) => runProcessSync(process.execPath, [MAIN, ...args]);
const lines = (stdout: string) =>
  stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { file: string; verified: boolean; errors?: string[] });

type Json = Record<string, unknown>;

/** An attestation naming `built`'s RPR, agent and jurisdiction, signed by a key no one here trusts. */
function ownAttestation(built: ReturnType<typeof buildSignedBundle>) {
  const parts = built.signed_bundle['bundle'] as {
    manifest: { rpr_hash: string };
    agent_passport: { payload: { agent_id: string } };
  };
  const signed = signAttestation(
    {
      issuer: 'did:web:attest.example.us',
      jurisdiction: 'US',
      rpr_hash: parts.manifest.rpr_hash,
      agent_id: parts.agent_passport.payload.agent_id,
      attested_at: new Date(Date.now() - 60_000).toISOString(),
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
    },
    selectCryptoBackend().generateKeyPair('ed25519').secretKey,
  );
  if (!signed.ok) throw new Error(signed.error.message);
  return signed.value;
}

/** A bundle whose first audit entry's evidence holds U+FFFD in its signed text. */
const withReplacementChar = JSON.stringify(
  buildSignedBundle({
    entries: 2,
    hooks: {
      entry: (entry: Json, i: number) => {
        if (i === 0) entry['evidence'] = { ...(entry['evidence'] as Json), note: 'before\uFFFDafter' };
      },
    },
  }).signed_bundle,
);

/** A bundle text with a fake `agent_id` inserted before the real one in the signed passport payload. */
function withDuplicateAgentId(): string {
  const text = JSON.stringify(buildSignedBundle({ tier: 'routine' }).signed_bundle);
  const at = text.indexOf('"agent_id":');
  return `${text.slice(0, at)}"agent_id":"agent-evil-00000000",${text.slice(at)}`;
}

describe('P318, P319: proto verify --batch reads and answers as proto verify FILE does', () => {
  it('a file holding FF where the signed text has U+FFFD: not verified in a batch, as FILE exits 2', () => {
    const file = path.join(work.dir, 'mangled.json');
    writeFileSync(file, replacementCharAsFF(Buffer.from(withReplacementChar, 'utf8')));
    expect(proto(['verify', file]).code).toBe(2);
    const run = proto(['verify', '--batch', file]);
    const [line] = lines(run.stdout);
    // Before P318: `verified: true`, exit 0.
    expect(line?.verified).toBe(false);
    expect(line?.errors?.join(' ')).toMatch(/not valid UTF-8/);
    expect(run.code).toBe(1);
  });

  it('a file with a member named twice in a signed payload: not verified in a batch, as FILE exits 2', () => {
    const file = path.join(work.dir, 'duplicate.json');
    writeFileSync(file, withDuplicateAgentId());
    expect(proto(['verify', file]).code).toBe(2);
    const run = proto(['verify', '--batch', file]);
    const [line] = lines(run.stdout);
    expect(line?.verified).toBe(false);
    expect(line?.errors?.join(' ')).toMatch(/member name "agent_id" appears twice/);
    expect(run.code).toBe(1);
  });

  it('the files as signed verify in a batch (the control)', () => {
    const file = path.join(work.dir, 'as-signed.json');
    writeFileSync(file, withReplacementChar, 'utf8');
    const run = proto(['verify', '--batch', file, file]);
    expect(lines(run.stdout).map((l) => l.verified)).toEqual([true, true]);
    expect(run.code).toBe(0);
  });

  it('P319: a request file’s receipt and attestation, which a batch does not check, are said to be unchecked', () => {
    const file = path.join(work.dir, 'request-with-evidence.json');
    const built = buildSignedBundle({ tier: 'routine' });
    // The receipt names this bundle's own hash: one naming another bundle is contradicted without a chain read and
    // fails the batch line since P385 (services/verification/test/hostile/edges2-readers.test.ts).
    writeFileSync(
      file,
      JSON.stringify({
        signed_bundle: built.signed_bundle,
        // A well-formed one for this bundle: a malformed one is contradicted in hand and fails the line since P437
        // (services/verification/test/hostile/jattest-parity.test.ts).
        jurisdiction_attestation: ownAttestation(built),
        anchor_receipt: { chain: 'transparency-log', bundle_hash: built.bundleHash },
      }),
    );
    const [line] = lines(proto(['verify', '--batch', file]).stdout) as (ReturnType<typeof lines>[number] & {
      warnings?: string[];
    })[];
    // Before P319: `verified: true` and not a word of the evidence, which POST /verify/batch checks.
    expect(line?.warnings).toEqual(
      expect.arrayContaining([
        'anchor_receipt not checked: proto verify --batch checks no evidence (use proto verify FILE)',
        'jurisdiction_attestation not checked: proto verify --batch checks no evidence (use proto verify FILE)',
      ]),
    );
  });
});
