// Brief "readers3": one request, one verdict and (where they are meant to agree) one wording from every reader: core's
// `verify(request)`, POST /verify, POST /verify/batch, `proto verify --json FILE` and `proto verify --batch` (the real
// service in process over HTTP, the real CLI spawned).
// - P452: ATTESTATION_MAX_AGE_DAYS reached the service only; core and the CLI always aged an attestation without
//   expires_at out at 30 days. Now core's `attestationMaxAgeDays` and the CLI's `--attestation-max-age-days`.
// - P453: a receipt's failure read `anchor_receipt: …` from the service and bare from core and the CLI; the CLI's
//   skipped receipt had no `anchor_receipt not checked` at all.
// - P455: an id written wholly in Cyrillic look-alikes of Latin letters is named (the whole-script case).
// - P454: the other wordings driven through all five: the CLI's `errors` held codes for evidence failures, a keyed
//   attestation failure read `attestation: attestation: …` from the CLI, the evidence of an unverified bundle was
//   said to be unchecked by the service only (and the CLI checked a receipt there), and a request without
//   signed_bundle was worded one way by core and another by the service.
import { buildSignedBundle, createVerifier, encodeBase64, type VerifierOptions } from '@proto/core';
import { tempDirSync } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/test-support.ts';
import {
  type ReaderAnswer as Answer,
  attestationSubjects,
  cli,
  coreVerifier,
  everyReader,
} from './testing/every-reader.ts';

const work = tempDirSync('readers3-parity');
const readers = everyReader(work.dir);
const { file } = readers;
/** Every reader's answer to `request`: core (with `coreOptions`), the service `app`, and the CLI with `flags`. */
const answers = async (...args: Parameters<typeof readers.ask>) => (await readers.ask(...args)).answers;

const DAY = 86_400_000;
const { built, other, agentOf, issuer, now, sign } = attestationSubjects(DAY);
const issuerKey = encodeBase64(issuer.publicKey);
/** No expires_at, attested three days ago: inside the 30-day default, past an operator's 2 days. */
const threeDaysOld = sign({ attested_at: new Date(now - 3 * DAY).toISOString(), expires_at: null });

/** A transparency-log receipt in SPEC.md's bare shape (no chain or log read can be made here). */
const logReceipt = (bundleHash: string) => ({
  log_url: 'https://log.example/',
  bundle_hash: bundleHash,
  log_index: 0,
  merkle_proof: [],
  status: 'confirmed',
});
/** `built` with its manifest changed after signing: not verified. */
const tampered = (() => {
  const copy = JSON.parse(JSON.stringify(built.signed_bundle)) as {
    bundle: { manifest: { audit_count: number } };
  };
  copy.bundle.manifest.audit_count = 3;
  return copy;
})();

let plain: RunningApp; // no attestation keys, ATTESTATION_MAX_AGE_DAYS=2
let keyed: RunningApp; // the issuer's key trusted for US, ATTESTATION_MAX_AGE_DAYS=2
beforeAll(async () => {
  // Shedding off: the CLI processes this file spawns beside it lag its event loop, and a 503 E702 is no verdict.
  const common = {
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    VERIFY_WORKERS: '1',
    ATTESTATION_MAX_AGE_DAYS: '2',
    MAX_EVENT_LOOP_DELAY_MS: '0',
  };
  [plain, keyed] = await Promise.all([
    startApp(common),
    startApp({ ...common, ATTESTATION_TRUSTED_KEYS: JSON.stringify({ US: [issuerKey] }) }),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all([plain, keyed].map((app) => app?.close()));
  work.remove();
});

/** Each reader's `pick` of its answer equals the service's. */
function expectAllAgree(all: Record<string, Answer>, pick: (a: Answer) => unknown) {
  const served = pick(all['POST /verify'] as Answer);
  for (const [reader, answer] of Object.entries(all)) {
    expect(pick(answer), `${reader}: ${JSON.stringify(answer)}`).toEqual(served);
  }
}
const attestationGist = (a: Answer) => ({
  verified: a.verified,
  attestation: a.checks?.['attestation'],
  code: a.error_details?.find((d) => d.check === 'attestation')?.code,
});
/** The verdict and every word of it, but for why a piece of evidence was not checked (each reader has its reason). */
const wording = (a: Answer) => ({
  verified: a.verified,
  checks: a.checks,
  errors: a.errors,
  error_details: a.error_details,
  warnings: a.warnings?.map((w) =>
    w.replace(/^(anchor_receipt|jurisdiction_attestation) not checked\b.*$/, '$1 not checked'),
  ),
});

describe('P452: ATTESTATION_MAX_AGE_DAYS gives one verdict everywhere', () => {
  it('no issuer keys: an attestation without expires_at older than the operator’s 2 days fails in every reader', async () => {
    const all = await answers(
      { signed_bundle: built.signed_bundle, jurisdiction_attestation: threeDaysOld },
      plain,
      { attestationMaxAgeDays: 2 } as VerifierOptions,
      { single: ['--attestation-max-age-days', '2'], batch: ['--attestation-max-age-days', '2'] },
    );
    for (const answer of Object.values(all))
      expect(attestationGist(answer), JSON.stringify(answer)).toEqual({
        verified: false,
        attestation: 'fail',
        code: 'PROTO-E104',
      });
    expectAllAgree(all, wording);
  });

  it('with the issuer key trusted: the same, from the keyed check of the service and of `proto verify`', async () => {
    const request = { signed_bundle: built.signed_bundle, jurisdiction_attestation: threeDaysOld };
    const served = (await (
      await fetch(`${keyed.url}/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(request),
      })
    ).json()) as Answer;
    const run = await cli([
      'verify',
      '--json',
      file(JSON.stringify(request)),
      '--attestation-key',
      issuerKey,
      '--attestation-max-age-days',
      '2',
    ]);
    const local = JSON.parse(run.stdout || `{"stderr": ${JSON.stringify(run.stderr)}}`) as Answer;
    expect(attestationGist(served)).toEqual({ verified: false, attestation: 'fail', code: 'PROTO-E104' });
    expect(wording(local), run.stdout).toEqual(wording(served));
    expect(run.code).toBe(1);
  });

  it('`proto attestation verify --max-age-days 2` refuses it too; without the flag (30 days) it verifies', async () => {
    const where = file(JSON.stringify(threeDaysOld));
    const strict = await cli(['attestation', 'verify', where, '--key', issuerKey, '--max-age-days', '2']);
    expect(strict.code, strict.stdout + strict.stderr).toBe(1);
    expect(JSON.parse(strict.stdout).error.code).toBe('PROTO-E104');
    const lenient = await cli(['attestation', 'verify', where, '--key', issuerKey]);
    expect(lenient.code, lenient.stdout + lenient.stderr).toBe(0);
  });

  it('controls: the default (30 days) still holds it in core and the CLI; a bad flag value is exit 2', async () => {
    const request = { signed_bundle: built.signed_bundle, jurisdiction_attestation: threeDaysOld };
    expect(attestationGist(coreVerifier({}).verify(request))).toEqual({
      verified: true,
      attestation: 'skipped',
      code: undefined,
    });
    const run = await cli(['verify', '--json', file(JSON.stringify(request))]);
    expect(run.code).toBe(0);
    const bad = await cli([
      'verify',
      '--json',
      file(JSON.stringify(request)),
      '--attestation-max-age-days',
      '0',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--attestation-max-age-days must be a whole number');
    expect(createVerifier({ attestationMaxAgeDays: 0 } as VerifierOptions).ok).toBe(false);
  });
});

describe('P453: a receipt is worded `anchor_receipt: …` by every reader', () => {
  it('a receipt for another bundle: the same message, error and code from all five', async () => {
    const all = await answers(
      { signed_bundle: built.signed_bundle, anchor_receipt: logReceipt(other.bundleHash) },
      plain,
      {},
    );
    expectAllAgree(all, wording);
    const message = all['POST /verify']?.error_details?.find((d) => d.check === 'anchor')?.message;
    expect(message).toMatch(/^anchor_receipt: receipt is for sha256:/);
  });

  it('this bundle’s own receipt: every reader says `anchor_receipt not checked…`', async () => {
    const all = await answers(
      { signed_bundle: built.signed_bundle, anchor_receipt: logReceipt(built.bundleHash) },
      plain,
      {},
    );
    expectAllAgree(all, wording);
    for (const [reader, answer] of Object.entries(all)) {
      const said = (answer.warnings ?? []).filter(
        (w) => w.includes('anchor_receipt') || w.includes('log.example'),
      );
      expect(said.length, `${reader}: ${JSON.stringify(answer.warnings)}`).toBe(1);
      expect(said[0], reader).toMatch(/^anchor_receipt not checked/);
    }
  });
});

describe('P454: a failing request is worded alike by core, the CLI and the service', () => {
  it('a malformed attestation: `errors` holds the message, not the code, in every reader', async () => {
    const all = await answers(
      { signed_bundle: built.signed_bundle, jurisdiction_attestation: { forged: true } },
      plain,
      {},
    );
    expectAllAgree(all, wording);
  });

  it('an attestation for another agent, the issuer key trusted: one `attestation: …` message', async () => {
    const request = {
      signed_bundle: built.signed_bundle,
      jurisdiction_attestation: sign({ agent_id: agentOf(other) }),
    };
    const served = (await (
      await fetch(`${keyed.url}/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(request),
      })
    ).json()) as Answer;
    const run = await cli([
      'verify',
      '--json',
      file(JSON.stringify(request)),
      '--attestation-key',
      issuerKey,
    ]);
    expect(wording(JSON.parse(run.stdout) as Answer), run.stdout).toEqual(wording(served));
    expect(served.error_details?.[0]?.message).toMatch(/^attestation: agent_id /);
  });

  it('an unverified bundle’s receipt and attestation: skipped and said to be, in the same words', async () => {
    const all = await answers(
      {
        signed_bundle: tampered,
        anchor_receipt: logReceipt(built.bundleHash),
        jurisdiction_attestation: sign({}),
      },
      plain,
      {},
    );
    // Exact warnings here: the reason (the bundle is not verified) is the same for every reader.
    expectAllAgree(all, (a) => ({ ...wording(a), warnings: a.warnings }));
    expect(all['POST /verify']?.checks?.['anchor']).toBe('skipped');
  });

  it('a request without signed_bundle: core words it as the service does', async () => {
    const request = { signed_bundel: built.signed_bundle };
    const core = coreVerifier({}).verify(request);
    const http = await fetch(`${plain.url}/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request),
    });
    const served = (await http.json()) as Answer;
    expect(http.status).toBe(400);
    expect(core.error_details?.map((d) => [d.code, d.message])).toEqual(
      served.error_details?.map((d) => [d.code, d.message]),
    );
  });
});

describe('P455: an id written wholly in Cyrillic look-alikes of Latin letters is named by every reader', () => {
  it('agent_id `ѕсоре-7` (Cyrillic ѕ, с, о, р, е): verified, and the warning says it reads as "scope-7"', async () => {
    const agent = '\u0455\u0441\u043e\u0440\u0435-7';
    const signed = buildSignedBundle({
      tier: 'routine',
      entries: 2,
      hooks: {
        payloads: (p) => {
          for (const payload of Object.values(p)) if ('agent_id' in payload) payload['agent_id'] = agent;
        },
        entry: (e) => {
          if ('agent_id' in e) e['agent_id'] = agent;
        },
      },
    }).signed_bundle;
    const all = await answers({ signed_bundle: signed }, plain, {});
    expectAllAgree(all, wording);
    const named = (all['POST /verify']?.warnings ?? []).filter((w) => w.includes('look-alike'));
    expect(all['POST /verify']?.verified).toBe(true);
    expect(named).toEqual([
      'agent_passport.payload.agent_id "⟨U+0455⟩⟨U+0441⟩⟨U+043E⟩⟨U+0440⟩⟨U+0435⟩-7" reads as the Latin "scope-7" (whole-script look-alike): an id that reads the same may be another (look-alike id; not a failure)',
    ]);
  });
});
