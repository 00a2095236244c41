// Issue 12 item 2 rows b and c over real HTTP: text with no single dcp-jcs-v1 reading gets no verdict
// (400 E001), the cache key cannot confuse Infinity with null, uncovered members only warn. JSON and CBOR.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postVerify, type RunningApp, sampleBundle, startApp } from '../../src/test-support.ts';

type Sample = ReturnType<typeof sampleBundle>;
let sample: Sample;
let cached: RunningApp;
let uncached: RunningApp;

beforeAll(async () => {
  sample = sampleBundle({ tier: 'standard', entries: 3 });
  [cached, uncached] = await Promise.all([startApp(), startApp({ VERIFICATION_CACHE_MAX_ENTRIES: '0' })]);
});
afterAll(() => Promise.all([cached.close(), uncached.close()]));

/** A fresh sample (its own cache key), as compact request text. */
function requestText(options: Parameters<typeof sampleBundle>[0] = { tier: 'standard', entries: 3 }): string {
  return JSON.stringify({ signed_bundle: sampleBundle(options).signed_bundle });
}

/** Replaces the first occurrence of `find`, failing loudly when it is absent. */
function edit(text: string, find: string, replacement: string): string {
  const at = text.indexOf(find);
  if (at === -1) throw new Error(`${find} not in the request`);
  return text.slice(0, at) + replacement + text.slice(at + find.length);
}

function expectNoVerdict(answer: Awaited<ReturnType<typeof postVerify>>, message: RegExp): void {
  expect(answer.status).toBe(400);
  expect(answer.json['verified']).toBe(false);
  const details = answer.json['error_details'] as { code: string; message: string }[];
  expect(details[0]!.code).toBe('PROTO-E001');
  expect(details[0]!.message).toMatch(message);
}

describe('row c: a fake agent_id before the real one inside a signed payload', () => {
  it('gets no verdict, cache on and off (JSON)', async () => {
    const text = requestText();
    const forged = edit(text, '"agent_id":', '"agent_id":"agent-evil-00000000","agent_id":');
    for (const target of [cached, uncached]) {
      expectNoVerdict(
        await postVerify(target.url, forged),
        /no canonical form: \$\.signed_bundle\.bundle\.agent_passport\.payload: member name "agent_id" appears twice/,
      );
    }
    // The untouched request still verifies.
    expect((await postVerify(cached.url, text)).json['verified']).toBe(true);
  });

  it('gets no verdict when the duplicate hides behind an escape', async () => {
    const forged = edit(requestText(), '"agent_id":', '"agent_id":"agent-evil-00000000","agent\\u005fid":');
    expectNoVerdict(await postVerify(cached.url, forged), /member name "agent_id" appears twice/);
  });

  it('gets no verdict (CBOR)', async () => {
    const request = { signed_bundle: sample.signed_bundle };
    const forged = cborWithDuplicate(
      request,
      ['signed_bundle', 'bundle', 'agent_passport', 'payload'],
      'agent_id',
    );
    for (const target of [cached, uncached]) {
      const answer = await postCbor(target.url, forged);
      expect(answer.status).toBe(400);
      expect(answer.json['error_details']).toEqual([
        expect.objectContaining({
          code: 'PROTO-E001',
          message: expect.stringMatching(/duplicate map key "agent_id"/),
        }),
      ]);
    }
  });
});

describe('duplicate member names at any depth', () => {
  it.each([
    [
      'the request itself',
      '{"signed_bundle":',
      '{"signed_bundle":{},"signed_bundle":',
      /\$: member name "signed_bundle"/,
    ],
    [
      'signed_bundle',
      '"signature":',
      '"signature":{},"signature":',
      /\$\.signed_bundle: member name "signature"/,
    ],
    [
      'the manifest',
      '"rpr_hash":',
      '"rpr_hash":"sha256:00","rpr_hash":',
      /\.manifest: member name "rpr_hash"/,
    ],
    [
      'an audit entry',
      '"evidence_hash":null',
      '"evidence_hash":"x","evidence_hash":null',
      /\.audit_entries\[0\]\.evidence: member name "evidence_hash"/,
    ],
  ])('in %s: 400 E001 naming the path, cache on and off', async (_where, find, replacement, message) => {
    const forged = edit(requestText(), find, replacement);
    for (const target of [cached, uncached]) expectNoVerdict(await postVerify(target.url, forged), message);
  });
});

describe('numbers with no finite value and lone surrogates', () => {
  it.each([
    ['1e400', '"evidence_hash":null', '"evidence_hash":1e400', /evidence_hash: number has no finite value/],
    ['-1e400', '"evidence_hash":null', '"evidence_hash":-1e400', /evidence_hash: number has no finite value/],
    [
      'a lone surrogate in a value',
      '"agent_id":"',
      '"agent_id":"\\ud800',
      /agent_id: string contains a lone surrogate/,
    ],
    [
      'a lone surrogate in a member name',
      '"signed_bundle":{',
      '"signed_bundle":{"\\udc00x":1,',
      /member name contains a lone surrogate/,
    ],
  ])('%s: 400 E001, cache on and off', async (_what, find, replacement, message) => {
    const forged = edit(requestText(), find, replacement);
    for (const target of [cached, uncached]) expectNoVerdict(await postVerify(target.url, forged), message);
  });

  // P150: a signed integer written as text a double cannot hold exactly. JSON.parse rounds it to the integer
  // the signature covers, so it verified; a reader of exact decimals (Decimal, BigDecimal, json.Number) reads
  // another value, a fraction where D15 allows none, or a tiny non-zero number where the signature says 0.
  it.each([
    ['2.9999999999999999999 for 3', '"audit_count":3', '"audit_count":2.9999999999999999999'],
    ['3.0000000000000000001 for 3', '"audit_count":3', '"audit_count":3.0000000000000000001'],
    ['1e-400 for 0', '"checkpoint_index":0', '"checkpoint_index":1e-400'],
    [
      'an integer beyond 2^53 for its double',
      '"checkpoint_index":0',
      '"checkpoint_index":0,"x":12345678901234567891',
    ],
  ])('%s: 400 E001, cache on and off', async (_what, find, replacement) => {
    const forged = edit(requestText(), find, replacement);
    for (const target of [cached, uncached]) {
      expectNoVerdict(await postVerify(target.url, forged), /is not exactly the integer/);
    }
  });

  it('integers written with a fraction of zeros or an exponent still verify: one reading (not over-strict)', async () => {
    const text = requestText();
    for (const spelled of ['"audit_count":3.0', '"audit_count":3e0', '"audit_count":30e-1']) {
      const answer = await postVerify(uncached.url, edit(text, '"audit_count":3', spelled));
      expect(answer.status, spelled).toBe(200);
      expect(answer.json['verified'], spelled).toBe(true);
    }
  });

  it('CBOR refuses the same things: a float infinity and a lone surrogate (as UTF-8 bytes)', async () => {
    const infinity = cborEncode(
      new Pairs([['signed_bundle', new Pairs([['v', new Float64(Number.POSITIVE_INFINITY)]])]]),
    );
    const surrogate = cborEncode(
      new Pairs([['signed_bundle', new Pairs([['v', new RawText([0xed, 0xa0, 0x80])]])]]),
    );
    for (const [bytes, message] of [
      [infinity, /floating-point numbers are not allowed/],
      [surrogate, /invalid UTF-8 text/],
    ] as const) {
      const answer = await postCbor(cached.url, bytes);
      expect(answer.status).toBe(400);
      expect((answer.json['error_details'] as { code: string; message: string }[])[0]).toEqual(
        expect.objectContaining({ code: 'PROTO-E001', message: expect.stringMatching(message) }),
      );
    }
  });
});

describe('row b: the cache cannot take 1e400 for null', () => {
  it('a tampered copy first does not poison the original', async () => {
    const original = requestText();
    const tampered = edit(original, '"evidence_hash":null', '"evidence_hash":1e400');
    expectNoVerdict(await postVerify(cached.url, tampered), /number has no finite value/);
    const answer = await postVerify(cached.url, original);
    expect(answer.headers.get('x-verification-cache')).toBe('miss');
    expect(answer.json['verified']).toBe(true);
  });

  it('the original first does not vouch for a tampered copy', async () => {
    const original = requestText();
    expect((await postVerify(cached.url, original)).json['verified']).toBe(true);
    const tampered = edit(original, '"evidence_hash":null', '"evidence_hash":-1e400');
    const answer = await postVerify(cached.url, tampered);
    expect(answer.headers.get('x-verification-cache')).toBeNull();
    expectNoVerdict(answer, /number has no finite value/);
  });
});

describe('members no signature covers', () => {
  it('are named in warnings, do not change the verdict, and each request names its own', async () => {
    const original = requestText();
    const padded = edit(
      edit(original, '"signed_bundle":{', '"signed_bundle":{"comment":"trust me",'),
      '"bundle":{',
      '"bundle":{"verified":true,',
    );
    const first = await postVerify(cached.url, padded);
    expect(first.headers.get('x-verification-cache')).toBe('miss');
    expect(first.json['verified']).toBe(true);
    const warnings = first.json['warnings'] as string[];
    expect(warnings).toContain(
      'signed_bundle.comment is covered by no signature; it was ignored and does not affect the verdict',
    );
    expect(warnings).toContain(
      'signed_bundle.bundle.verified is covered by no signature; it was ignored and does not affect the verdict',
    );
    // Same covered form, other bytes: another key (P235), with this request's own (absent) uncovered members.
    const plain = await postVerify(cached.url, original);
    expect(plain.headers.get('x-verification-cache')).toBe('miss');
    expect(plain.json['verified']).toBe(true);
    expect((plain.json['warnings'] as string[] | undefined) ?? []).not.toEqual(
      expect.arrayContaining([expect.stringContaining('covered by no signature')]),
    );
    const otherText = edit(original, '"bundle":{', '"bundle":{"x":1,');
    expect((await postVerify(cached.url, otherText)).headers.get('x-verification-cache')).toBe('miss');
    // The same bytes again: a hit, naming the member its own analysis found.
    const other = await postVerify(cached.url, otherText);
    expect(other.headers.get('x-verification-cache')).toBe('hit');
    expect(other.json['warnings']).toContain(
      'signed_bundle.bundle.x is covered by no signature; it was ignored and does not affect the verdict',
    );
    expect(other.json['warnings']).not.toContain(warnings[0]);
  });

  it('are named a few at a time: tens of thousands of them cannot make the answer ten times the body (P149)', async () => {
    const original = requestText();
    // 40,000 one-to-four-character members cost ~8 bytes each; a warning each would be ~100 bytes.
    const members = Array.from({ length: 40_000 }, (_, i) => `"${i.toString(36)}":0`).join(',');
    const padded = edit(original, '"signed_bundle":{', `"signed_bundle":{${members},`);
    for (const server of [uncached, cached, cached]) {
      const res = await fetch(`${server.url}/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: padded,
      });
      const text = await res.text();
      expect(res.status).toBe(200);
      // Bounded by the signed part, not by what the sender padded around it.
      expect(text.length).toBeLessThan(original.length);
      const answer = JSON.parse(text) as { verified: boolean; warnings: string[] };
      expect(answer.verified).toBe(true);
      const uncovered = answer.warnings.filter((w) => w.includes('covered by no signature'));
      expect(uncovered.length).toBeLessThanOrEqual(11);
      // The first in order are still named, and the rest are counted.
      expect(uncovered).toContain(
        'signed_bundle.a is covered by no signature; it was ignored and does not affect the verdict',
      );
      expect(uncovered.at(-1)).toMatch(/^… and 39990 more members are covered by no signature/);
    }
  });
});

// ---- a minimal CBOR writer that can say what the strict decoder must refuse ----

/** An object as a list of members, so a name can appear twice. */
class Pairs {
  readonly entries: [string, unknown][];
  constructor(entries: [string, unknown][]) {
    this.entries = entries;
  }
}
class Float64 {
  readonly value: number;
  constructor(value: number) {
    this.value = value;
  }
}
/** A text string given as raw bytes (e.g. a UTF-8-encoded surrogate). */
class RawText {
  readonly bytes: number[];
  constructor(bytes: number[]) {
    this.bytes = bytes;
  }
}

function head(major: number, length: number): number[] {
  if (length < 24) return [(major << 5) | length];
  if (length < 0x100) return [(major << 5) | 24, length];
  if (length < 0x10000) return [(major << 5) | 25, length >> 8, length & 0xff];
  return [
    (major << 5) | 26,
    (length >>> 24) & 0xff,
    (length >> 16) & 0xff,
    (length >> 8) & 0xff,
    length & 0xff,
  ];
}

function cborEncode(value: unknown): Buffer {
  const out: number[] = [];
  const text = (bytes: Uint8Array | number[]) => {
    out.push(...head(3, bytes.length));
    for (const b of bytes) out.push(b);
  };
  const write = (v: unknown): void => {
    if (v === null) out.push(0xf6);
    else if (v === true) out.push(0xf5);
    else if (v === false) out.push(0xf4);
    else if (typeof v === 'number') {
      if (!Number.isSafeInteger(v) || Math.abs(v) > 0xffffffff) throw new Error(`unsupported number ${v}`);
      out.push(...(v >= 0 ? head(0, v) : head(1, -1 - v)));
    } else if (typeof v === 'string') text(Buffer.from(v, 'utf8'));
    else if (v instanceof RawText) text(v.bytes);
    else if (v instanceof Float64) {
      const bytes = Buffer.alloc(9);
      bytes[0] = 0xfb;
      bytes.writeDoubleBE(v.value, 1);
      out.push(...bytes);
    } else if (v instanceof Pairs) {
      out.push(...head(5, v.entries.length));
      for (const [k, inner] of v.entries) {
        text(Buffer.from(k, 'utf8'));
        write(inner);
      }
    } else if (Array.isArray(v)) {
      out.push(...head(4, v.length));
      for (const item of v) write(item);
    } else if (typeof v === 'object') {
      write(new Pairs(Object.entries(v as Record<string, unknown>)));
    } else throw new Error(`unsupported ${typeof v}`);
  };
  write(value);
  return Buffer.from(out);
}

/** CBOR of `value` with a second, fake `name` member inserted first in the object at `path`. */
function cborWithDuplicate(value: Record<string, unknown>, path: string[], name: string): Buffer {
  const forge = (node: unknown, rest: string[]): unknown => {
    const record = node as Record<string, unknown>;
    const entries = Object.entries(record).map(([k, v]): [string, unknown] =>
      rest.length > 0 && k === rest[0] ? [k, forge(v, rest.slice(1))] : [k, v],
    );
    if (rest.length === 0) entries.unshift([name, 'agent-evil-00000000']);
    return new Pairs(entries);
  };
  return cborEncode(forge(value, path));
}

async function postCbor(url: string, body: Buffer) {
  const res = await fetch(`${url}/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/cbor' },
    body,
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}
