// The readers of one verify request that must agree (P435–P437, P452–P455): core's `verify(request)`, POST /verify
// and POST /verify/batch of the real service over HTTP, and the real CLI spawned (`proto verify --json FILE` and
// `proto verify --batch`); and the bundles and attestation issuer those parity tests judge.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildSignedBundle,
  createVerifier,
  selectCryptoBackend,
  signAttestation,
  type UnsignedAttestation,
  type VerifierOptions,
} from '@proto/core';
import { runProcess } from '@proto/testing';
import type { RunningApp } from '../../../src/test-support.ts';

const CLI = fileURLToPath(new URL('../../../../../packages/cli/src/main.ts', import.meta.url));

export type ReaderAnswer = {
  verified: boolean;
  checks?: Record<string, string>;
  errors?: string[];
  warnings?: string[];
  error_details?: { code: string; check: string; message: string; retryable: boolean }[];
};

export interface EveryReader {
  /** Each reader's answer, by reader: core, POST /verify, POST /verify/batch, proto verify, proto verify --batch. */
  readonly answers: Record<string, ReaderAnswer>;
  /** The CLI's exit codes. */
  readonly codes: { readonly 'proto verify': number | null; readonly 'proto verify --batch': number | null };
}

/** Runs `proto …args` (stdin empty). */
export const cli = (args: readonly string[]) => runProcess(process.execPath, [CLI, ...args], { input: '' });

/** Core's verifier with `options` (throws if they are refused). */
export function coreVerifier(options: VerifierOptions) {
  const made = createVerifier(options);
  if (!made.ok) throw new Error(made.error.message);
  return made.value;
}

/** The readers, their request files written under `dir`. */
export function everyReader(dir: string) {
  let files = 0;
  /** `content` written to a fresh file under `dir`: its path. */
  const file = (content: string): string => {
    files += 1;
    const where = path.join(dir, `request-${files}.json`);
    writeFileSync(where, content);
    return where;
  };
  /** Every reader's answer to `request`: core (with `coreOptions`), the service `app`, and the CLI with `flags`. */
  const ask = async (
    request: object,
    app: RunningApp,
    coreOptions: VerifierOptions,
    flags: { single?: readonly string[]; batch?: readonly string[] } = {},
  ): Promise<EveryReader> => {
    const text = JSON.stringify(request);
    const core = coreVerifier(coreOptions).verify(JSON.parse(text));
    const http = await fetch(`${app.url}/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: text,
    });
    const batch = await fetch(`${app.url}/verify/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: `${text}\n`,
    });
    const where = file(text);
    const single = await cli(['verify', '--json', where, ...(flags.single ?? [])]);
    const many = await cli(['verify', '--batch', where, ...(flags.batch ?? [])]);
    const { file: _file, ...line } = JSON.parse(many.stdout.trim() || '{}') as ReaderAnswer & {
      file?: string;
    };
    return {
      answers: {
        core: JSON.parse(JSON.stringify(core)) as ReaderAnswer,
        'POST /verify': (await http.json()) as ReaderAnswer,
        'POST /verify/batch': JSON.parse((await batch.text()).trim()) as ReaderAnswer,
        'proto verify': JSON.parse(
          single.stdout || `{"stderr": ${JSON.stringify(single.stderr)}}`,
        ) as ReaderAnswer,
        'proto verify --batch': line,
      },
      codes: { 'proto verify': single.code, 'proto verify --batch': many.code },
    };
  };
  return { file, ask };
}

/**
 * Two routine bundles (`built`, the one judged, and `other`) and an Ed25519 issuer whose attestations `sign` writes:
 * by default of `built`'s agent and RPR for US (the builder's jurisdiction), attested a minute ago and valid for
 * `validForMs` from `now`.
 */
export function attestationSubjects(validForMs: number) {
  const built = buildSignedBundle({ tier: 'routine', entries: 2 });
  const other = buildSignedBundle({ tier: 'routine', entries: 2 });
  const parts = (b: typeof built) => b.signed_bundle['bundle'] as Record<string, Record<string, unknown>>;
  const agentOf = (b: typeof built) =>
    (parts(b)['agent_passport'] as { payload: { agent_id: string } }).payload.agent_id;
  const rprOf = (b: typeof built) => (parts(b)['manifest'] as { rpr_hash: string }).rpr_hash;
  const issuer = selectCryptoBackend().generateKeyPair('ed25519');
  const now = Date.now();
  const base: UnsignedAttestation = {
    issuer: 'did:web:attest.example.us',
    jurisdiction: 'US',
    rpr_hash: rprOf(built),
    agent_id: agentOf(built),
    attested_at: new Date(now - 60_000).toISOString(),
    expires_at: new Date(now + validForMs).toISOString(),
  };
  const sign = (fields: Partial<UnsignedAttestation>) => {
    const signed = signAttestation({ ...base, ...fields }, issuer.secretKey);
    if (!signed.ok) throw new Error(signed.error.message);
    return signed.value;
  };
  return { built, other, agentOf, rprOf, issuer, now, base, sign };
}
