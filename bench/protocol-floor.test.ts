// The protocol floor of `pnpm bench` (P100, P103): what it times must be the work it names. Each floor
// reads the very body it is given, the CBOR one with the service's strict decoder and its `_b64` names,
// and hashes the very bytes it is given with both bundle hashes. Not timed: that is the benchmark's to say.
import { computeBundleHashes, selectCryptoBackend } from '@proto/core';
import { describe, expect, it } from 'vitest';
import { instantVerifier } from './engine-cases.ts';
import { engineWork, type FloorCase, floorCase, floorWork, WIRES } from './protocol-floor.ts';

const backend = selectCryptoBackend('auto');
const c = floorCase(
  { name: 'elevated-2', options: { tier: 'elevated', entries: 2 }, runs: 1, ab: false },
  backend,
);
const request = JSON.parse(c.bodies.JSON as string) as { signed_bundle: unknown };
const hashes = computeBundleHashes(request.signed_bundle);
if (!hashes.ok) throw new Error(hashes.error.message);
const cbor = c.bodies.CBOR as Uint8Array;
const withCbor = (body: Uint8Array): FloorCase => ({ ...c, bodies: { ...c.bodies, CBOR: body } });

describe('the protocol floor', () => {
  it.each(WIRES)('%s: reads the request and computes both hashes the bundle has', (wire) => {
    const floor = floorWork(c, wire);
    expect(floor.request).toStrictEqual(request);
    expect(floor.hashes).toStrictEqual(hashes.value);
  });

  it("CBOR: the body carries signatures and keys as bytes, which the floor's decode turns back into _b64 text", () => {
    expect(Buffer.from(cbor).includes('sig_b64')).toBe(false);
    expect(Buffer.from(cbor).includes('public_key_b64')).toBe(false);
    expect(JSON.stringify(floorWork(c, 'CBOR').request)).toContain('"sig_b64":"');
  });

  it('CBOR: decodes the body it is given, strictly', () => {
    expect(() => floorWork(withCbor(cbor.subarray(0, cbor.length - 1)), 'CBOR')).toThrow(/truncated/);
    expect(() => floorWork(withCbor(Buffer.concat([cbor, Buffer.from([0xf6])])), 'CBOR')).toThrow(/trailing/);
    // {"a": 1.5}: a float, which a lax decoder reads and PROTOCOL §8.2 refuses.
    const float = Buffer.from([0xa1, 0x61, 0x61, 0xfb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0]);
    expect(() => floorWork(withCbor(float), 'CBOR')).toThrow(/floating-point/);
    const other = Buffer.from([0xa1, 0x61, 0x61, 0x42, 0x01, 0x02]);
    expect(floorWork(withCbor(other), 'CBOR').request).toStrictEqual({ a_b64: 'AQI=' });
  });

  it.each(WIRES)('%s: hashes the canonical bytes it is given', (wire) => {
    const changed = Uint8Array.from(c.canonical);
    changed[changed.length >> 1]! ^= 1;
    const floor = floorWork({ ...c, canonical: changed }, wire);
    expect(floor.hashes.bundleHash).not.toBe(hashes.value.bundleHash);
    expect(floor.hashes.bundleHashSecondary).not.toBe(hashes.value.bundleHashSecondary);
  });

  it.each(WIRES)("%s: the engine's column verifies the request read from the body", (wire) => {
    const instant = instantVerifier(backend);
    expect(engineWork(c, wire, instant).verified).toBe(true);
    if (wire === 'CBOR') expect(() => engineWork(withCbor(cbor.subarray(1)), wire, instant)).toThrow();
  });
});
