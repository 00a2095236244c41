// Brief "cbor3" (P590): every body-taking route of the verification service refuses the same hostile CBOR and JSON
// bodies (duplicate keys, values JSON has no form for, tags, indefinite lengths, lying lengths, prototype members, lone
// surrogates, 1e400, UTF-16) in its reader's words and stores nothing: POST /verify (read on a thread), each item of
// POST /verify/batch as NDJSON, a JSON array and a CBOR sequence (the item's /verify 400 in its place), POST /anchor
// and every /v2 record route (the kit's parsers). The real service over HTTP, with its records on SQLite.

import { buildSignedBundle } from '@proto/core';
import { decodeCbor, encodeCbor } from '@proto/service-kit';
import { type HostileBody, hostileBodies, hostileMismatches, type Refusal, refusalOf } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORD_ROUTES, TRANSITION_PATH } from '../../src/records/index.ts';
import { startVerifierWithRecords, type VerifierWithRecords } from './verifier-with-records.ts';

const AGENT = 'agent-cbor3-0001';
const bodies = hostileBodies({ signed_bundle: 'x', public_key_b64: 'AAAA' });

/** A batch answers 200 with one /verify answer per item: the first item's refusal, read as /verify's would be. */
const firstItem = (status: number, text: string): Refusal =>
  status === 200 ? refusalOf(400, text.split('\n')[0] ?? '') : refusalOf(status, text);

/** Rows whose bytes mean something else inside a batch (a sequence's next item, no item, a batch's own refusal). */
const BATCH_ONLY_FRAMING = /trailing bytes|two items|empty body|byte-order mark|UTF-16/;
const inBatch = bodies.filter((row) => !BATCH_ONLY_FRAMING.test(row.name));

/** Each row as a one-item batch of `format`: NDJSON and a JSON array take the JSON rows, a CBOR sequence the CBOR. */
function asBatch(format: 'ndjson' | 'json-array' | 'cbor-seq'): HostileBody[] {
  return inBatch.flatMap((row) => {
    const json = row.contentType.startsWith('application/json');
    if (format === 'cbor-seq') return json ? [] : [{ ...row, contentType: 'application/cbor-seq' }];
    if (!json) return [];
    if (format === 'ndjson')
      return [
        {
          ...row,
          contentType: row.contentType.replace('application/json', 'application/x-ndjson'),
          body: Buffer.concat([row.body, Buffer.from('\n')]),
        },
      ];
    return [{ ...row, body: Buffer.concat([Buffer.from('['), row.body, Buffer.from(']')]) }];
  });
}

describe('P590: hostile bodies on every body-taking route of the verification service', () => {
  let verifier: VerifierWithRecords;
  beforeAll(async () => {
    verifier = await startVerifierWithRecords('sqlite', 'cbor3-body-decoding', {
      VERIFY_RATE_LIMIT_PER_MINUTE: '0',
      V2_RATE_LIMIT_PER_MINUTE: '0',
    });
  }, 60_000);
  afterAll(async () => {
    await verifier?.close();
  });

  it('POST /verify: every hostile body is 400 E001 (415 for a foreign charset)', async () => {
    expect(await hostileMismatches(`${verifier.url}/verify`, bodies)).toEqual([]);
  });

  it.each(['ndjson', 'json-array', 'cbor-seq'] as const)(
    'POST /verify/batch as %s: every hostile item gets /verify’s 400 E001 in its place',
    async (format) => {
      const url = `${verifier.url}/verify/batch`;
      expect(await hostileMismatches(url, asBatch(format), { answerOf: firstItem })).toEqual([]);
    },
  );

  it('POST /anchor: every hostile body is 400 E001 (415 for a foreign charset)', async () => {
    const table = hostileBodies({ bundle_hash: `sha256:${'ab'.repeat(32)}`, chain: 'transparency-log' });
    expect(await hostileMismatches(`${verifier.url}/anchor`, table)).toEqual([]);
  });

  it.each([...RECORD_ROUTES.map((route) => route.path), TRANSITION_PATH])(
    'POST %s: every hostile body is 400 E001 (415 for a foreign charset)',
    async (path) => {
      const table = hostileBodies({ agent_id: AGENT, human_id: 'human-cbor3-0001' });
      expect(await hostileMismatches(`${verifier.url}${path}`, table)).toEqual([]);
    },
  );

  it('one bundle, one verdict: JSON (with -0, with a BOM), CBOR, NDJSON with CRLF, blank lines and a BOM per line, a CBOR sequence', async () => {
    const request = {
      signed_bundle: buildSignedBundle({ now: new Date(Date.now() - 60_000) }).signed_bundle,
    };
    const json = JSON.stringify(request);
    const minusZero = json.replace('"checkpoint_index":0', '"checkpoint_index":-0');
    expect(minusZero).not.toBe(json);
    const bom = '\ufeff';
    const send = async (path: string, type: string, body: string | Uint8Array) => {
      const res = await fetch(`${verifier.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': type },
        body,
      });
      const text = await res.text();
      return {
        status: res.status,
        answers: text
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as unknown),
      };
    };
    const asJson = await send('/verify', 'application/json', json);
    expect(asJson.status).toBe(200);
    expect(asJson.answers[0]).toMatchObject({ verified: true });
    const cbor = encodeCbor(request);
    const answers = [
      await send('/verify', 'application/json', minusZero),
      await send('/verify', 'application/json', `${bom}${json}`),
      await send('/verify', 'application/cbor', cbor),
      await send('/verify/batch', 'application/x-ndjson', `${bom}${json}\r\n\r\n  \n${bom}${minusZero}\r\n`),
      await send('/verify/batch', 'application/cbor-seq', Buffer.concat([cbor, cbor])),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.flatMap((a) => a.answers)).toEqual(Array(7).fill(asJson.answers[0]));
    // A bare CR ends no NDJSON line: the two requests are one line, which is no JSON (its /verify 400).
    const bareCr = await send('/verify/batch', 'application/x-ndjson', `${json}\r${json}\n`);
    expect(bareCr.answers).toEqual([
      expect.objectContaining({ verified: false, errors: ['Invalid JSON body'] }),
    ]);
    expect(decodeCbor(cbor)).toEqual(request);
  });

  it('nothing was stored: the agent has no lifecycle state', async () => {
    const res = await fetch(`${verifier.url}/v2/lifecycle/${AGENT}`);
    await res.arrayBuffer();
    expect(res.status).toBe(404);
  });
});
