// A log whose checkpoint answer is not a signed note (P169, after P161). POST /verify with a real log receipt (the
// real anchor service on the real transparency log) against the real verification service, which holds the log's
// verifier key and reads the log through a local front that rewrites the checkpoint answers as each test asks.
// A checkpoint that does not parse as a signed note (an HTML page with 200, a note cut short, a garbled signature
// line) says nothing about the receipt: `skipped` PROTO-E701, retryable. A note that parses but is not signed by
// the configured key (a signature that does not verify, no line from the key) still fails: only the key's holder
// can speak for the log. And a forged receipt never passes through a faulty log: skipped at best.
import { startWitnessedAnchoring, type WitnessedAnchoring } from '@proto/anchor/testing';
import { buildAnchorBatch } from '@proto/core';
import { type FrontRequest, forwardTo, type HostileFront, startHostileFront } from '@proto/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postVerify, type RunningApp, sampleBundle, startApp } from '../../src/test-support.ts';

/** How the front rewrites the log's signed note; undefined: the log's answer as it is. */
type Rewrite = (note: string) => string;

const HTML = '<!doctype html>\n<html><body><h1>Sign in to continue</h1></body></html>\n';

let anchoring: WitnessedAnchoring;
let hostile: HostileFront;
let rewrite: Rewrite | undefined;
/** Checkpoint answers are sent as this content type with 200 (the log's own otherwise). */
let htmlPage = false;
let app: RunningApp;
let receipt: Record<string, unknown>;
const sample = sampleBundle({});

/** The note with its first signature line's last signature byte flipped: it parses, it does not verify. */
function flipSignature(note: string): string {
  const split = note.lastIndexOf('\n\n');
  const lines = note.slice(split + 2, -1).split('\n');
  const first = lines[0] ?? '';
  const space = first.lastIndexOf(' ');
  const bytes = Buffer.from(first.slice(space + 1), 'base64');
  bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 0x01;
  lines[0] = `${first.slice(0, space + 1)}${bytes.toString('base64')}`;
  return `${note.slice(0, split + 2)}${lines.join('\n')}\n`;
}

async function answer(request: FrontRequest): Promise<{ status: number; type: string; body: string }> {
  const upstream = await forwardTo(`${anchoring.front.url}${request.url}`, request);
  const body = await upstream.text();
  const type = upstream.headers.get('content-type') ?? 'text/plain';
  const route = request.path;
  if (upstream.status !== 200 || (route !== '/checkpoint' && route !== '/root/signed'))
    return { status: upstream.status, type, body };
  if (htmlPage) return { status: 200, type: 'text/html', body: HTML };
  if (rewrite === undefined) return { status: 200, type, body };
  if (route === '/checkpoint') return { status: 200, type, body: rewrite(body) };
  const json = JSON.parse(body) as { checkpoint: string };
  return { status: 200, type, body: JSON.stringify({ ...json, checkpoint: rewrite(json.checkpoint) }) };
}

beforeAll(async () => {
  anchoring = await startWitnessedAnchoring('verification-log-checkpoint', sample.bundleHash, {
    BATCH_INTERVAL_MS: '0',
  });
  hostile = await startHostileFront(async (request, res) => {
    const a = await answer(request);
    res.writeHead(a.status, { 'content-type': a.type }).end(a.body);
  });
  // The receipt names the log where this verifier reads it: the hostile front (log_url is not signed).
  receipt = { ...anchoring.receipt, log_url: hostile.url };
  app = await startApp({
    VERIFY_WORKERS: '1',
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    ANCHOR_VERIFY_CACHE_MAX_ENTRIES: '0',
    ANCHOR_VERIFY_LOG_URL: hostile.url,
    ANCHOR_VERIFY_LOG_KEY: anchoring.log.verifierKey,
  });
});

afterAll(async () => {
  await app?.close();
  await hostile?.close();
  await anchoring?.close();
});

beforeEach(() => {
  rewrite = undefined;
  htmlPage = false;
});

const verify = (anchorReceipt = receipt, bundle = sample) =>
  postVerify(app.url, { signed_bundle: bundle.signed_bundle, anchor_receipt: anchorReceipt });

async function expectUnavailable(reason: RegExp, anchorReceipt = receipt, bundle = sample): Promise<void> {
  const { status, json } = await verify(anchorReceipt, bundle);
  expect(status).toBe(200);
  expect(json, JSON.stringify(json)).toMatchObject({ verified: true, checks: { anchor: 'skipped' } });
  expect(json['warnings']).toEqual([
    expect.stringMatching(
      new RegExp(`^anchor_receipt not checked \\[PROTO-E701, retryable\\]: .*${reason.source}`),
    ),
  ]);
}

async function expectFailed(reason: RegExp): Promise<void> {
  const { json } = await verify();
  expect(json, JSON.stringify(json)).toMatchObject({ verified: false, checks: { anchor: 'fail' } });
  expect(json['error_details']).toEqual([
    expect.objectContaining({ check: 'anchor', message: expect.stringMatching(reason), retryable: false }),
  ]);
}

describe('a log checkpoint that is not a signed note leaves the anchor check skipped (E701), not failed', () => {
  it('passes through the front when the log answers as it is', async () => {
    const { json } = await verify();
    expect(json, JSON.stringify(json)).toMatchObject({ verified: true, checks: { anchor: 'pass' } });
  });

  it('an HTML page with 200 where the checkpoint should be', async () => {
    htmlPage = true;
    await expectUnavailable(/not a signed note/);
  });

  it('a note cut before its signature lines', async () => {
    rewrite = (note) => note.slice(0, note.lastIndexOf('\n\n') + 1);
    await expectUnavailable(/not a signed note/);
  });

  it('a signature line that is not base64', async () => {
    rewrite = (note) => `${note.slice(0, note.lastIndexOf('\n\n') + 2)}— ${'x'.repeat(8)} %%%not-base64%%%\n`;
    await expectUnavailable(/not a signed note/);
  });

  it('a note with control characters', async () => {
    rewrite = (note) => note.replace('\n', '\u0007\n');
    await expectUnavailable(/not a signed note/);
  });
});

describe('a checkpoint that parses but is not signed by the configured key still fails', () => {
  it("the log key's signature does not verify", async () => {
    rewrite = flipSignature;
    await expectFailed(/log checkpoint: .*does not verify/);
  });

  it('no signature line from the configured key', async () => {
    rewrite = (note) => note.replace(/\n— (\S+) /, '\n— someone.else.example/log ');
    await expectFailed(/log checkpoint: note carries no signature from a trusted key/);
  });
});

describe('a forged receipt never passes through a faulty log', () => {
  /** Another bundle's hash, as leaf `index` of a batch the size of the receipt's, that the log never held. */
  function forgedReceipt(): { receipt: Record<string, unknown>; bundle: ReturnType<typeof sampleBundle> } {
    const bundle = sampleBundle({});
    const size = receipt['batch_size'] as number;
    const index = receipt['leaf_index'] as number;
    const hashes = Array.from({ length: size }, (_, i) =>
      i === index ? bundle.bundleHash : `sha256:${String(i).padStart(64, '0')}`,
    );
    const batch = buildAnchorBatch(hashes);
    if (!batch.ok) throw new Error(batch.error.message);
    return {
      bundle,
      receipt: {
        ...receipt,
        bundle_hash: bundle.bundleHash,
        batch_root: batch.value.root,
        merkle_proof: batch.value.paths[index],
      },
    };
  }

  it('fails against the log as it is (E202), and is only skipped while the log answers HTML', async () => {
    const forged = forgedReceipt();
    const { json } = await verify(forged.receipt, forged.bundle);
    expect(json, JSON.stringify(json)).toMatchObject({ verified: false, checks: { anchor: 'fail' } });
    expect(json['error_details']).toEqual([expect.objectContaining({ code: 'PROTO-E202', check: 'anchor' })]);
    htmlPage = true;
    await expectUnavailable(/not a signed note/, forged.receipt, forged.bundle);
    rewrite = flipSignature;
    htmlPage = false;
    const flipped = await verify(forged.receipt, forged.bundle);
    expect(flipped.json).toMatchObject({ verified: false, checks: { anchor: 'fail' } });
  });
});
