// POST /verify with a transparency-log receipt from the real anchor service and the real log (in-process), the
// log's checkpoint carrying witness cosignatures (c2sp.org/tlog-cosignature): k distinct configured witnesses
// over this exact checkpoint or the anchor check fails with E103. Issue 18 item 2; P59, P60. The cosignature
// lines come from @proto/anchor/testing's witnessed-log front (a fixture until the witness service is merged).
import {
  cosignatureLine,
  forkedCheckpointText,
  startWitnessedAnchoring,
  testWitnessSet,
  type WitnessedAnchoring,
  type WitnessedLogFront,
} from '@proto/anchor/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postVerify, type RunningApp, sampleBundle, startApp } from './test-support.ts';

const { a, b, c, stranger } = testWitnessSet();

let anchoring: WitnessedAnchoring;
let front: WitnessedLogFront;
let witnessed: RunningApp;
let plain: RunningApp;
let receipt: Record<string, unknown>;
let emptyCheckpoint: string;
const anchored = sampleBundle({});

beforeAll(async () => {
  anchoring = await startWitnessedAnchoring('verification-witness', anchored.bundleHash, {
    BATCH_INTERVAL_MS: '0',
  });
  ({ front, receipt, emptyCheckpoint } = anchoring);
  // No answer is remembered: each case below changes what the log front serves.
  const common = {
    VERIFY_WORKERS: '1',
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    ANCHOR_VERIFY_CACHE_MAX_ENTRIES: '0',
    ANCHOR_VERIFY_LOG_URL: front.url,
    ANCHOR_VERIFY_LOG_KEY: anchoring.log.verifierKey,
  };
  [witnessed, plain] = await Promise.all([
    startApp({
      ...common,
      ANCHOR_VERIFY_WITNESS_KEYS: [a, b, c].map((w) => w.vkey).join(','),
      ANCHOR_VERIFY_WITNESS_QUORUM: '2',
    }),
    startApp(common),
  ]);
});

afterAll(async () => {
  await Promise.all([witnessed, plain].map((app) => app?.close()));
  await anchoring?.close();
});

const verify = (app: RunningApp) =>
  postVerify(app.url, { signed_bundle: anchored.signed_bundle, anchor_receipt: receipt });

async function refused(expected: RegExp): Promise<void> {
  const { status, json } = await verify(witnessed);
  expect(status).toBe(200);
  expect(json, JSON.stringify(json)).toMatchObject({ verified: false, checks: { anchor: 'fail' } });
  expect(json['error_details']).toEqual([
    { code: 'PROTO-E103', check: 'anchor', message: expect.stringMatching(expected), retryable: false },
  ]);
}

describe('anchor check of a log receipt with a witness quorum (k = 2 of a, b, c)', () => {
  it('the receipt names the witnessed log', () => {
    expect(receipt).toMatchObject({ log_url: front.url, status: 'confirmed' });
  });

  it('passes with 2 cosignatures and names the witnesses that cosigned', async () => {
    front.setWitnessing((text) => cosignatureLine(text, a) + cosignatureLine(text, b));
    const { json } = await verify(witnessed);
    expect(json, JSON.stringify(json)).toMatchObject({ verified: true, checks: { anchor: 'pass' } });
    expect(json['warnings']).toEqual([
      'anchor_receipt: log checkpoint cosigned by witness.test/a, witness.test/b (witness quorum 2)',
    ]);
  });

  it('fails with k-1 cosignatures (E103), saying who cosigned', async () => {
    front.setWitnessing((text) => cosignatureLine(text, c));
    await refused(
      /lacks its witness quorum: cosigned by 1 of the 2 required witness\(es\): witness\.test\/c/,
    );
  });

  it('does not count a cosignature by a witness that is not configured', async () => {
    front.setWitnessing((text) => cosignatureLine(text, a) + cosignatureLine(text, stranger));
    await refused(/cosigned by 1 of the 2 required witness\(es\): witness\.test\/a$/);
  });

  it('counts the same witness twice as one', async () => {
    front.setWitnessing((text) => cosignatureLine(text, a) + cosignatureLine(text, a, 1_790_000_001));
    await refused(/cosigned by 1 of the 2 required/);
  });

  it('does not count a cosignature over another checkpoint of the same size (split view)', async () => {
    front.setWitnessing((text) => cosignatureLine(text, a) + cosignatureLine(forkedCheckpointText(text), b));
    await refused(
      /cosigned by 1 of the 2 required witness\(es\): witness\.test\/a; not counted: witness\.test\/b \(does not verify/,
    );
  });

  it('fails with no cosignature at all', async () => {
    front.setWitnessing(() => '');
    await refused(/cosigned by 0 of the 2 required/);
  });

  it('a witnessed checkpoint older than the receipt: not yet (retryable skip), as before', async () => {
    front.serveOlder(emptyCheckpoint);
    front.setWitnessing((text) => cosignatureLine(text, a) + cosignatureLine(text, b));
    try {
      const { json } = await verify(witnessed);
      expect(json, JSON.stringify(json)).toMatchObject({ verified: true, checks: { anchor: 'skipped' } });
      expect(json['warnings']).toEqual([
        expect.stringMatching(
          /^anchor_receipt not checked \[PROTO-E702, retryable\]: .*older than the receipt/,
        ),
      ]);
    } finally {
      front.serveOlder(undefined);
    }
  });

  it('without witnesses configured the log check is unchanged: a checkpoint without cosignatures passes', async () => {
    front.setWitnessing(() => '');
    const { json } = await verify(plain);
    expect(json, JSON.stringify(json)).toMatchObject({ verified: true, checks: { anchor: 'pass' } });
    expect(json['warnings']).toBeUndefined();
  });

  it('the capabilities document says the quorum', async () => {
    const doc = (await (
      await fetch(`${witnessed.url}/.well-known/proto-capabilities.json`)
    ).json()) as Record<string, unknown>;
    expect(doc['log_witness_quorum']).toEqual([
      { log_url: front.url, quorum: 2, witnesses: [a.vkey, b.vkey, c.vkey] },
    ]);
    const none = (await (await fetch(`${plain.url}/.well-known/proto-capabilities.json`)).json()) as Record<
      string,
      unknown
    >;
    expect(none['log_witness_quorum']).toBeUndefined();
  });
});
