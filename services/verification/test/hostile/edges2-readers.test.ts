// Readers and verdicts that did not agree with each other (brief "edges2"). The real verification service over HTTP,
// and the real `proto` CLI (spawned) beside it for the parity cases.
// - P380: a receipt for another bundle, no anchor sources configured: the service answered `anchor: skipped`
//   (verified), `proto verify --receipt` `anchor: fail`. Now both fail it: no chain read is needed to see it.
// - P381: a `constructor` member holding a `prototype` member was refused by service-kit's parser only.
// - P382: a leading byte-order mark: /verify and the CLI dropped it, service-kit's parser refused the body.
// - P383: ids that are not NFC or hold invisible characters verified with no word.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSignedBundle } from '@proto/core';
import { encodeCbor } from '@proto/service-kit';
import { runProcess, tempDirSync } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/test-support.ts';

const CLI = fileURLToPath(new URL('../../../../packages/cli/src/main.ts', import.meta.url));
const work = tempDirSync('edges2-readers');

let service: RunningApp;
beforeAll(async () => {
  // No anchor sources (the default): the case of P380.
  service = await startApp({ VERIFY_RATE_LIMIT_PER_MINUTE: '0', VERIFY_WORKERS: '1' });
}, 60_000);
afterAll(async () => {
  await service?.close();
  work.remove();
});

const built = buildSignedBundle({ tier: 'routine', entries: 2 });
const other = buildSignedBundle({ tier: 'routine', entries: 2 });
const bundle = built.signed_bundle;
const bundleText = JSON.stringify(bundle);

const post = async (route: string, body: string | Uint8Array, type: string, auth?: string) => {
  const res = await fetch(`${service.url}${route}`, {
    method: 'POST',
    headers: { 'content-type': type, ...(auth === undefined ? {} : { authorization: `Bearer ${auth}` }) },
    body,
  });
  return { status: res.status, text: await res.text() };
};

type Answer = {
  verified: boolean;
  checks: Record<string, string>;
  warnings?: string[];
  errors?: string[];
  error_details?: { code: string; check: string; message: string }[];
};

const cli = (args: readonly string[], input: string | Uint8Array = '') =>
  runProcess(process.execPath, [CLI, ...args], { input });

function file(name: string, content: string | Uint8Array): string {
  const at = path.join(work.dir, name);
  writeFileSync(at, content);
  return at;
}

/** A transparency-log receipt in SPEC.md's bare shape for `bundleHash` (no chain read can be made here). */
const logReceipt = (bundleHash: string) => ({
  log_url: 'https://log.example/',
  bundle_hash: bundleHash,
  log_index: 0,
  merkle_proof: [],
  status: 'confirmed',
});

describe('P380: a receipt for another bundle gets one verdict from the service and the CLI', () => {
  it.each([
    ['a receipt for another bundle', logReceipt(other.bundleHash), false, 'fail', 'PROTO-E202'],
    [
      'a receipt claiming to have failed',
      { ...logReceipt(built.bundleHash), status: 'failed' },
      false,
      'fail',
      'PROTO-E202',
    ],
    [
      'a malformed receipt (leaf_index past batch_size)',
      { ...logReceipt(built.bundleHash), batch_root: 'ab'.repeat(32), batch_size: 1, leaf_index: 5 },
      false,
      'fail',
      'PROTO-E002',
    ],
    [
      'this bundle’s receipt (control: nothing to read it against)',
      logReceipt(built.bundleHash),
      true,
      'skipped',
      undefined,
    ],
  ] as const)('%s: same verified and anchor check', async (_what, receipt, verified, anchor, code) => {
    const http = await post(
      '/verify',
      JSON.stringify({ signed_bundle: bundle, anchor_receipt: receipt }),
      'application/json',
    );
    expect(http.status).toBe(200);
    const served = JSON.parse(http.text) as Answer;
    expect({ verified: served.verified, anchor: served.checks['anchor'] }, http.text).toEqual({
      verified,
      anchor,
    });
    const run = await cli([
      'verify',
      '--json',
      file('p380-bundle.json', bundleText),
      '--receipt',
      file('p380-receipt.json', JSON.stringify(receipt)),
    ]);
    const local = JSON.parse(run.stdout) as Answer;
    expect({ verified: local.verified, anchor: local.checks['anchor'] }, run.stdout).toEqual({
      verified,
      anchor,
    });
    expect(run.code).toBe(verified ? 0 : 1);
    // The same code from both.
    const pick = (a: Answer) => a.error_details?.find((d) => d.check === 'anchor')?.code;
    expect(pick(served)).toBe(code);
    expect(pick(local)).toBe(code);
  });
});

describe('P385: proto verify --batch fails a receipt for another bundle, as /verify/batch does with no sources', () => {
  it('the same request file: the same verdict and anchor check from both', async () => {
    const request = JSON.stringify({ signed_bundle: bundle, anchor_receipt: logReceipt(other.bundleHash) });
    const served = await post('/verify/batch', `${request}\n`, 'application/x-ndjson');
    const line = JSON.parse(served.text.trim()) as Answer;
    expect({ verified: line.verified, anchor: line.checks['anchor'] }).toEqual({
      verified: false,
      anchor: 'fail',
    });
    const run = await cli(['verify', '--batch', file('p385.json', request)]);
    const local = JSON.parse(run.stdout.trim()) as Answer;
    expect({ verified: local.verified, anchor: local.checks['anchor'] }, run.stdout).toEqual({
      verified: false,
      anchor: 'fail',
    });
    expect(local.error_details?.[0]?.code).toBe('PROTO-E202');
    expect(run.code).toBe(1);
    // Its own receipt, which only a chain or log read could pass: still verified, still said to be unchecked (P319).
    const own = JSON.stringify({ signed_bundle: bundle, anchor_receipt: logReceipt(built.bundleHash) });
    const ownRun = await cli(['verify', '--batch', file('p385-own.json', own)]);
    const ownLine = JSON.parse(ownRun.stdout.trim()) as Answer;
    expect(ownLine.verified).toBe(true);
    expect(ownLine.checks['anchor']).toBe('skipped');
    expect(ownLine.warnings?.some((w) => w.startsWith('anchor_receipt not checked'))).toBe(true);
  });
});

/** The bundle's text with a `constructor: {prototype: …}` member first (uncovered by any signature: ignored). */
const withConstructor = `{"constructor":{"prototype":{"x":1}},${bundleText.slice(1)}`;

describe('P381: a `constructor` member holding `prototype` is refused by every reader', () => {
  it.each([
    ['inside the bundle', `{"signed_bundle":${withConstructor}}`],
    ['beside the bundle', `{"constructor":{"prototype":{}},"signed_bundle":${bundleText}}`],
    [
      'spelled with escapes, inside the bundle',
      `{"signed_bundle":{"constr\\u0075ctor":{"prototyp\\u0065":1},${bundleText.slice(1)}}`,
    ],
  ])('/verify JSON, %s: 400 E001 naming it', async (_where, body) => {
    expect(body).toContain('"constr');
    const answer = await post('/verify', body, 'application/json');
    expect(answer.status, answer.text).toBe(400);
    const json = JSON.parse(answer.text) as Answer;
    expect(json.verified).toBe(false);
    expect(json.error_details?.[0]?.code).toBe('PROTO-E001');
    expect(json.error_details?.[0]?.message).toContain('constructor.prototype');
  });

  it('/verify CBOR: 400 naming it', async () => {
    const request = { signed_bundle: JSON.parse(withConstructor) as unknown };
    const answer = await post('/verify', encodeCbor(request), 'application/cbor');
    expect(answer.status, answer.text).toBe(400);
    expect(answer.text).toContain('constructor.prototype');
  });

  it.each([
    ['NDJSON', 'application/x-ndjson', (items: string[]) => `${items.join('\n')}\n`],
    ['array', 'application/json', (items: string[]) => `[${items.join(',')}]`],
  ])('/verify/batch %s: the item with it gets its own 400 body', async (_f, type, join) => {
    const good = JSON.stringify({ signed_bundle: bundle });
    const answer = await post('/verify/batch', join([good, `{"signed_bundle":${withConstructor}}`]), type);
    expect(answer.status).toBe(200);
    const lines = answer.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Answer);
    expect(lines.map((l) => l.verified)).toEqual([true, false]);
    expect(lines[1]?.errors?.[0]).toContain('constructor.prototype');
  });

  it('`constructor` as plain data (a string, an object without `prototype`) is not refused (control)', async () => {
    const body = `{"signed_bundle":{"constructor":{"name":"prototype"},${bundleText.slice(1)}}`;
    const answer = await post('/verify', body, 'application/json');
    expect(answer.status).toBe(200);
    expect((JSON.parse(answer.text) as Answer).verified).toBe(true);
  });

  it('proto verify FILE and --batch: exit 2 / a failed line naming it', async () => {
    const at = file('p381.json', withConstructor);
    const run = await cli(['verify', at]);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('constructor.prototype');
    expect(run.code).toBe(2);
    const batch = await cli(['verify', '--batch', at]);
    expect(batch.stdout).toContain('constructor.prototype');
    expect(batch.stdout).toContain('"verified":false');
    expect(batch.code).toBe(1);
  });

  it('proto verify --batch refuses `__proto__` too, as FILE does (P336)', async () => {
    const at = file('p381-proto.json', `{"__proto__":{"x":1},${bundleText.slice(1)}`);
    const batch = await cli(['verify', '--batch', at]);
    expect(batch.stdout).toContain('__proto__');
    expect(batch.stdout).toContain('"verified":false');
    expect(batch.code).toBe(1);
  });
});

const BOM = '\uFEFF';

describe('P382: a leading byte-order mark is dropped by every JSON reader', () => {
  it('a service-kit JSON route (POST /anchor) reads the body after the mark', async () => {
    // `chian` is a member the route does not read: a 400 naming it shows the body was read as JSON.
    const body = `${BOM}${JSON.stringify({ bundle_hash: `sha256:${'ab'.repeat(32)}`, chian: 'bitcoin' })}`;
    const answer = await post('/anchor', body, 'application/json', 'caller-token');
    expect(answer.status, answer.text).toBe(400);
    expect(answer.text).toContain('chian');
    expect(answer.text).not.toContain('not valid JSON');
  });

  it('two marks are not one: the second is no JSON whitespace (400)', async () => {
    const body = `${BOM}${BOM}${JSON.stringify({ bundle_hash: `sha256:${'ab'.repeat(32)}`, chian: 'x' })}`;
    const answer = await post('/anchor', body, 'application/json', 'caller-token');
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('not valid JSON');
  });

  it('/verify and each NDJSON line: the mark dropped, the bundle verified (controls)', async () => {
    const one = `${BOM}${JSON.stringify({ signed_bundle: bundle })}`;
    const single = await post('/verify', one, 'application/json');
    expect(single.status).toBe(200);
    expect((JSON.parse(single.text) as Answer).verified).toBe(true);
    const batch = await post('/verify/batch', `${one}\n${one}\n`, 'application/x-ndjson');
    expect(
      batch.text
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as Answer).verified),
    ).toEqual([true, true]);
    const twice = await post('/verify', `${BOM}${one}`, 'application/json');
    expect(twice.status).toBe(400);
  });

  it('proto verify FILE, stdin and --batch: the mark dropped as the service drops it', async () => {
    const at = file('p382.json', `${BOM}${bundleText}`);
    expect((await cli(['verify', at])).code).toBe(0);
    expect((await cli(['verify', '-'], `${BOM}${bundleText}`)).code).toBe(0);
    const batch = await cli(['verify', '--batch', at]);
    expect(batch.stdout).toContain('"verified":true');
    expect(batch.code).toBe(0);
    expect((await cli(['verify', file('p382-twice.json', `${BOM}${BOM}${bundleText}`)])).code).toBe(2);
  });
});

/** A bundle whose agent (or principal) id is `id` everywhere it is named, signed as such. */
function bundleWithIds(ids: { agent?: string; human?: string }): Record<string, unknown> {
  const set = (o: Record<string, unknown>) => {
    if (ids.agent !== undefined && 'agent_id' in o) o['agent_id'] = ids.agent;
    if (ids.human !== undefined && 'human_id' in o) o['human_id'] = ids.human;
    if (ids.human !== undefined && 'principal_binding_reference' in o)
      o['principal_binding_reference'] = ids.human;
  };
  return buildSignedBundle({
    tier: 'routine',
    entries: 2,
    hooks: {
      payloads: (p) => {
        for (const payload of Object.values(p)) set(payload);
      },
      entry: (e) => set(e),
    },
  }).signed_bundle;
}

describe('P383: ids a person cannot tell apart are named in a warning (not a failure)', () => {
  it.each([
    [
      'a zero-width space in agent_id',
      { agent: 'agent-\u200Bf43f16125502a2b1' },
      'agent_passport.payload.agent_id',
      'U+200B',
    ],
    [
      'a right-to-left override in agent_id',
      { agent: 'agent-\u202Efed' },
      'agent_passport.payload.agent_id',
      'U+202E',
    ],
    [
      'a decomposed é in human_id',
      { human: 'human-jose\u0301' },
      'responsible_principal_record.payload.human_id',
      'NFC',
    ],
    [
      'a Cyrillic а among Latin letters',
      { agent: 'agent-\u0430lpha' },
      'agent_passport.payload.agent_id',
      'Cyrillic',
    ],
    ['fullwidth letters', { agent: 'agent-\uff41lpha' }, 'agent_passport.payload.agent_id', 'compatibility'],
  ] as const)('%s: the service and the CLI verify it and name the id', async (_what, ids, where, why) => {
    const signed = bundleWithIds(ids);
    const http = await post('/verify', JSON.stringify({ signed_bundle: signed }), 'application/json');
    const served = JSON.parse(http.text) as Answer;
    expect(served.verified, http.text).toBe(true);
    const warning = served.warnings?.find((w) => w.startsWith(where));
    expect(warning, JSON.stringify(served.warnings)).toContain(why);
    expect(warning).toContain('look-alike');
    // Written with the hidden character spelled out, so two such ids read differently.
    expect(warning).toMatch(/⟨U\+[0-9A-F]{4}⟩/);
    expect(served.warnings?.filter((w) => w.includes('look-alike'))).toHaveLength(1);
    const run = await cli(['verify', '--json', file('p383.json', JSON.stringify(signed))]);
    const local = JSON.parse(run.stdout) as Answer;
    expect(local.verified).toBe(true);
    expect(local.warnings).toContain(warning);
  });

  it('plain ids: no such warning (control)', async () => {
    const http = await post('/verify', JSON.stringify({ signed_bundle: bundle }), 'application/json');
    expect(http.text).not.toContain('look-alike');
    const accented = bundleWithIds({ human: 'human-jos\u00e9' }); // NFC, one script: an id like any other
    const answer = await post('/verify', JSON.stringify({ signed_bundle: accented }), 'application/json');
    expect((JSON.parse(answer.text) as Answer).verified).toBe(true);
    expect(answer.text).not.toContain('look-alike');
  });
});

describe('P388: a failure naming two ids that differ only in what cannot be seen spells the difference out', () => {
  it('intent.agent_id with a zero-width space the passport’s lacks: the E304 message shows ⟨U+200B⟩', async () => {
    const signed = buildSignedBundle({
      tier: 'routine',
      entries: 1,
      hooks: {
        payloads: (p) => {
          p.intent['agent_id'] = `${String(p.intent['agent_id'])}\u200B`;
        },
      },
    }).signed_bundle;
    const http = await post('/verify', JSON.stringify({ signed_bundle: signed }), 'application/json');
    const served = JSON.parse(http.text) as Answer;
    expect(served.verified).toBe(false);
    const message = served.error_details?.find((d) => d.message.includes('agent_id mismatch'))?.message;
    expect(message, http.text).toContain('⟨U+200B⟩');
    expect(message).not.toContain('\u200B');
  });
});
