// The end-to-end floor verifier (P132): it must be a verifier, not a stub. Over HTTP, in every arrangement and
// every variant that swaps in a piece of the service (P136: piscina, the service's worker task, both, the engine
// alone), a good
// bundle gets the service's captured answer and a forged one is refused; in-process, the calls it hands
// node:crypto are exactly the engine's, and a flip in any one of a bundle's signatures is refused. Not timed.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSignedBundle, createVerifier, selectCryptoBackend } from '@proto/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingBackend } from './engine-cases.ts';
import { floorPoolSettings } from './floor-verifier-pool.ts';
import { floorSignatureSet, floorVerify } from './floor-verifier-work.ts';
import { encodeFloorAnswer, type FloorAnswer, startListening } from './http-floor.ts';
import { stopChild } from './launch-service.ts';

const SERVER = fileURLToPath(new URL('./floor-verifier-server.ts', import.meta.url));
const backend = selectCryptoBackend('auto');
const dir = mkdtempSync(join(tmpdir(), 'floor-verifier-test-'));
const answer: FloorAnswer = {
  status: 200,
  headers: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'r1' },
  body: Buffer.from('{"verified":true,"checks":{"signatures":"pass"}}'),
};
const answerFile = join(dir, 'answer.json');

type Json = Record<string, unknown>;
const requestOf = (tier: 'routine' | 'elevated' | 'maximum', entries: number): Json =>
  JSON.parse(JSON.stringify({ signed_bundle: buildSignedBundle({ tier, entries, backend }).signed_bundle }));
const elevated = requestOf('elevated', 2);
const bytesOf = (request: unknown) => new TextEncoder().encode(JSON.stringify(request));

/** Every object holding a `sig_b64`, in document order: one per signature half of the bundle. */
function signatureHolders(node: unknown, found: Json[] = []): Json[] {
  if (Array.isArray(node)) for (const item of node) signatureHolders(item, found);
  else if (node !== null && typeof node === 'object') {
    if (typeof (node as Json)['sig_b64'] === 'string') found.push(node as Json);
    for (const value of Object.values(node)) signatureHolders(value, found);
  }
  return found;
}

/** A copy of `request` with one byte of its `index`-th signature flipped. */
function flipped(request: Json, index: number): Json {
  const copy = structuredClone(request);
  const holder = signatureHolders(copy)[index]!;
  const sig = Buffer.from(holder['sig_b64'] as string, 'base64');
  sig[sig.length >> 1]! ^= 0x01;
  holder['sig_b64'] = sig.toString('base64');
  return copy;
}

/** A copy whose passport's first key is another key of the same algorithm: its signatures cannot verify. */
function wrongKey(request: Json): Json {
  const copy = structuredClone(request);
  const passport = ((copy['signed_bundle'] as Json)['bundle'] as Json)['agent_passport'] as Json;
  const key = ((passport['payload'] as Json)['keys'] as Json[])[0]!;
  const other = backend.generateKeyPair(key['alg'] as 'ed25519' | 'ml-dsa-65');
  key['public_key_b64'] = Buffer.from(other.publicKey).toString('base64');
  return copy;
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the floor verifier in-process', () => {
  it.each([
    ['routine-3', requestOf('routine', 3)],
    ['elevated-2', elevated],
    ['maximum-6', requestOf('maximum', 6)],
  ] as const)(
    '%s: hands node:crypto exactly the calls the engine makes, and all verify',
    (_name, request) => {
      const { backend: recording, calls } = recordingBackend(backend);
      const verifier = createVerifier({ mode: 'hybrid_preferred', backend: recording });
      if (!verifier.ok) throw new Error(verifier.error.message);
      expect(verifier.value.verify(structuredClone(request)).verified).toBe(true);
      const set = floorSignatureSet(bytesOf(request));
      const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
      const callsOf = (m: readonly Uint8Array[], k: readonly Uint8Array[], s: readonly Uint8Array[]) =>
        m.map((message, i) => `${hex(message)}|${hex(k[i]!)}|${hex(s[i]!)}`).sort();
      expect(calls.length).toBeGreaterThan(4);
      expect(callsOf(set.messages, set.publicKeys, set.signatures)).toStrictEqual(
        callsOf(
          calls.map((c) => c.message),
          calls.map((c) => c.publicKey),
          calls.map((c) => c.signature),
        ),
      );
      expect(floorVerify(bytesOf(request))).toStrictEqual({ status: 200 });
    },
  );

  it('refuses a flip in any one of the signatures, the last checkpoint half included', () => {
    const request = requestOf('maximum', 3);
    const count = signatureHolders(request).length;
    expect(count).toBe(floorSignatureSet(bytesOf(request)).signatures.length);
    for (let i = 0; i < count; i++) expect(floorVerify(bytesOf(flipped(request, i))).status).toBe(422);
  });

  it('refuses bytes that are not UTF-8 or not JSON, and a bundle without its parts', () => {
    const good = bytesOf(elevated);
    const notUtf8 = Uint8Array.from(good);
    notUtf8[good.indexOf(0x22, 40) + 1] = 0xff;
    expect(floorVerify(notUtf8).status).toBe(400);
    expect(floorVerify(good.subarray(0, good.length - 1)).status).toBe(400);
    expect(floorVerify(bytesOf({ signed_bundle: {} })).status).toBe(400);
  });
});

/** The service's settings as the bench derives them (floor-verifier.ts), for two threads. */
const POOL_SETTINGS = JSON.stringify(
  floorPoolSettings({ VERIFY_WORKERS: '2', VERIFY_QUEUE_MAX: '4096', VERIFIER_MODE: 'hybrid_preferred' }),
);

/** Each variant's environment, and the code its refusal of a forged bundle carries. */
const VARIANTS = [
  { name: 'threads', env: { FLOOR_VERIFIER: 'threads' }, refusal: 'FLOOR_SIGNATURE_INVALID' },
  { name: 'inline', env: { FLOOR_VERIFIER: 'inline' }, refusal: 'FLOOR_SIGNATURE_INVALID' },
  { name: 'piscina', env: { FLOOR_VERIFIER: 'piscina' }, refusal: 'FLOOR_SIGNATURE_INVALID' },
  {
    name: "threads running the service's worker task",
    env: { FLOOR_VERIFIER: 'threads', FLOOR_VERIFIER_WORK: 'service' },
    refusal: 'FLOOR_NOT_VERIFIED',
  },
  {
    name: "threads running core's verifier alone",
    env: { FLOOR_VERIFIER: 'threads', FLOOR_VERIFIER_WORK: 'engine' },
    refusal: 'FLOOR_NOT_VERIFIED',
  },
  {
    name: "the service's VerifyPool",
    env: { FLOOR_VERIFIER: 'piscina', FLOOR_VERIFIER_WORK: 'service' },
    refusal: 'FLOOR_NOT_VERIFIED',
  },
] as const;

for (const variant of VARIANTS) {
  describe(`the floor verifier server, ${variant.name}`, () => {
    let child: ChildProcess;
    let url: string;
    beforeAll(async () => {
      writeFileSync(answerFile, encodeFloorAnswer(answer));
      ({ child, url } = await startListening(SERVER, {
        ...variant.env,
        FLOOR_VERIFIER_WORKERS: '2',
        FLOOR_VERIFIER_POOL: POOL_SETTINGS,
        FLOOR_ANSWER_FILE: answerFile,
      }));
    });
    afterAll(() => stopChild(child));
    const post = (body: string | Uint8Array) =>
      fetch(`${url}/verify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

    it("answers a good bundle with the service's captured answer, again and again", async () => {
      for (let i = 0; i < 4; i++) {
        const reply = await post(JSON.stringify(elevated));
        expect(reply.status).toBe(200);
        expect(reply.headers.get('x-request-id')).toBe('r1');
        expect(Buffer.from(await reply.arrayBuffer())).toEqual(answer.body);
      }
    });

    it('refuses a bundle with one signature byte flipped, and one signed under another key', async () => {
      for (const forged of [flipped(elevated, 0), flipped(elevated, 5), wrongKey(elevated)]) {
        const reply = await post(JSON.stringify(forged));
        expect(reply.status).toBe(422);
        const { error } = (await reply.json()) as { error: { code: string; message: string } };
        expect(error.code).toBe(variant.refusal);
        // The service's task names the engine's own refusal (PROTOCOL's error codes).
        if (variant.refusal === 'FLOOR_NOT_VERIFIED') expect(error.message).toMatch(/PROTO-E\d{3}/);
      }
    });

    it('refuses malformed JSON with a 4xx', async () => {
      const reply = await post('{"signed_bundle": ');
      expect(reply.status).toBe(400);
      expect(((await reply.json()) as { verified: boolean }).verified).toBe(false);
    });

    // BENCH_CPU_PROF divides a side's profile by every body it judged (P138). Inline, each process counts its own.
    it.skipIf(variant.name === 'inline')(
      'counts every body it judged: 4 good, 3 forged, 1 malformed',
      async () => {
        expect(await (await fetch(`${url}/requests`)).text()).toBe('8');
      },
    );
  });
}
