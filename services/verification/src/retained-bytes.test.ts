// One measure of retained bytes for the analysis cache, the passport keys kept with an entry and the
// exact-body memo (P94): the length of the JSON text, counted without writing it.
import { buildSignedBundle, createVerifier, selectCryptoBackend } from '@proto/core';
import type { PassportKeys } from '@proto/store';
import { describe, expect, it } from 'vitest';
import { BodyMemo } from './body-memo.ts';
import { evidenceOf } from './bundle-subject.ts';
import { analysisBytes, VerificationCache } from './cache.ts';
import { retainedBytes } from './retained-bytes.ts';

const built = createVerifier({ backend: selectCryptoBackend('auto') });
if (!built.ok) throw new Error(built.error.message);
const verifier = built.value;
const request = {
  signed_bundle: buildSignedBundle({ tier: 'standard', entries: 3 }).signed_bundle,
  anchor_receipt: { log_id: 'log-1', leaf_index: 7, proof: ['ab', 'cd'], pending: false, note: null },
};
const analysis = verifier.analyze(request);

const passport: PassportKeys = {
  agentId: 'agent-1',
  createdAt: undefined,
  evidence: 'sha256:00ff',
  activeKids: ['kid-a', 'kid-b'],
  retiredKids: [],
  subjects: ['agent-1', 'human-1'],
  bindings: [
    {
      kid: 'kid-a',
      subject: 'agent-1',
      alg: 'Ed25519',
      publicKeyB64: 'A'.repeat(44),
      evidence: 'sha256:00ff',
      role: 'passport',
      expiresAt: null,
    },
  ],
  humanId: 'human-1',
};

describe('retainedBytes', () => {
  it('is the length of the JSON text of an analysis, a passport and a request’s evidence', () => {
    for (const value of [analysis, passport, evidenceOf(request), 'kid', 12.5, -0, true, null, [], {}]) {
      expect(retainedBytes(value)).toBe(JSON.stringify(value).length);
    }
    // Members JSON leaves out count nothing; in an array they would be written as null.
    expect(retainedBytes({ a: undefined, b: () => 1 })).toBe(2);
    expect(retainedBytes([undefined])).toBe('[null]'.length);
  });

  it('counts a byte array’s bytes, and an object reached twice once', () => {
    expect(retainedBytes(new Uint8Array(1000))).toBe(1000);
    const shared = { text: 'x'.repeat(1000) };
    expect(retainedBytes([shared, shared])).toBeLessThan(1100);
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic['self'] = cyclic;
    expect(retainedBytes(cyclic)).toBeGreaterThan(0);
  });

  it('walks evidence nested deeper than the stack allows recursion', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(retainedBytes(deep)).toBe(200_000 * 2 + 6);
  });

  it('is what the cache and the memo count, passport keys included', () => {
    const cache = new VerificationCache(10);
    cache.set('key', analysis, retainedBytes(passport));
    expect(analysisBytes('key', analysis)).toBe(retainedBytes('key') + retainedBytes(analysis));
    expect(cache.bytes).toBe(analysisBytes('key', analysis) + retainedBytes(passport));
    cache.release('key', analysis);
    expect(cache.bytes).toBe(analysisBytes('key', analysis));

    const memo = new BodyMemo(10);
    const digest = BodyMemo.digest('json', Buffer.from(JSON.stringify(request)));
    const known = {
      cacheKey: 'key',
      evidence: evidenceOf(request),
    };
    memo.set(digest, known);
    expect(memo.bytes).toBe(retainedBytes(digest) + retainedBytes(known));
    expect(BodyMemo.bytesOf(digest, known)).toBe(JSON.stringify([digest, known]).length - 3);
  });
});
