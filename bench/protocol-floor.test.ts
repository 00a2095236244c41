// The protocol floor of `pnpm bench` (P100, P103): what it times must be the work it names. Each floor
// reads the very body it is given, the CBOR one with the service's strict decoder and its `_b64` names,
// and hashes the very bytes it is given with both bundle hashes. Not timed: that is the benchmark's to say.
import {
  computeBundleHashes,
  createVerifier,
  fromHex,
  type HashAlg,
  hashCanonicalV2,
  protocolMerkleRootOfDigests,
  selectCryptoBackend,
  toHex,
} from '@proto/core';
import { describe, expect, it } from 'vitest';
import { instantVerifier, recordingBackend } from './engine-cases.ts';
import {
  canonicalWriter,
  engineWork,
  type FloorCase,
  floorCase,
  floorWork,
  readRequest,
  strictFloorWork,
  WIRES,
} from './protocol-floor.ts';
import { PrefixRoots } from './strict-floor.ts';

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

// The strict floor (P116): with the canonical writer in place of JSON.stringify, every value it computes must
// be one the engine derives from the same bundle, and its messages, keys and signatures must be exactly the
// calls the engine makes to the signature primitive; with JSON.stringify it must write as many bytes.
describe('the strict protocol floor', () => {
  const cases = [
    floorCase({ name: 'elevated-3', options: { tier: 'elevated', entries: 3 }, runs: 1, ab: false }, backend),
    floorCase({ name: 'routine-5', options: { tier: 'routine', entries: 5 }, runs: 1, ab: false }, backend),
    floorCase({ name: 'maximum-6', options: { tier: 'maximum', entries: 6 }, runs: 1, ab: false }, backend),
  ];
  interface Envelope {
    payload: unknown;
    payload_hash: string;
  }
  interface TestBundle {
    manifest: { audit_merkle_root: string; audit_merkle_root_secondary: string };
    audit_entries: Record<string, unknown>[];
    pq_checkpoints: { audit_state: { primary_merkle_root: string; secondary_merkle_root: string } }[];
  }
  const bundleOf = (fc: FloorCase) =>
    (JSON.parse(fc.bodies.JSON as string) as { signed_bundle: { bundle: TestBundle } }).signed_bundle.bundle;
  const envelopeOf = (bundle: TestBundle, field: string) =>
    (bundle as unknown as Record<string, Envelope>)[field]!;
  const bare = (prefixed: string) => prefixed.slice(prefixed.indexOf(':') + 1);
  const computeHash = (value: unknown, alg: HashAlg = 'sha256') => {
    const h = hashCanonicalV2(alg, value);
    if (!h.ok) throw new Error(h.error.message);
    return h.value;
  };

  it.each(cases.flatMap((fc) => WIRES.map((wire) => [fc.name, wire, fc] as const)))(
    "%s %s: payload hashes, leaves, chains and roots are the bundle's and the engine's",
    (_name, wire, fc) => {
      const bundle = bundleOf(fc);
      const strict = strictFloorWork(fc, wire, canonicalWriter);
      const fields = ['responsible_principal_record', 'agent_passport', 'intent', 'policy_decision'];
      expect(strict.payloadHashes).toStrictEqual(
        fields.map((f) => bare(computeHash(envelopeOf(bundle, f).payload))),
      );
      expect(strict.payloadHashes.map((h) => `sha256:${h}`)).toStrictEqual(
        fields.map((f) => envelopeOf(bundle, f).payload_hash),
      );
      const entries = bundle.audit_entries;
      expect(strict.leaves.sha256).toStrictEqual(entries.map((e) => bare(computeHash(e))));
      expect(strict.leaves['sha3-256']).toStrictEqual(entries.map((e) => bare(computeHash(e, 'sha3-256'))));
      entries.slice(1).forEach((e, i) => {
        expect(e['prev_hash']).toBe(`sha256:${strict.leaves.sha256[i]}`);
        expect(e['prev_hash_secondary']).toBe(`sha3-256:${strict.leaves['sha3-256'][i]}`);
      });
      expect(`sha3-256:${strict.intentHashSecondary}`).toBe(entries[0]!['intent_hash_secondary']);
      const checkpoints = bundle.pq_checkpoints;
      expect(strict.roots.sha256).toStrictEqual([
        ...checkpoints.map((cp) => bare(cp.audit_state.primary_merkle_root)),
        bare(bundle.manifest.audit_merkle_root),
      ]);
      expect(strict.roots['sha3-256']).toStrictEqual([
        ...checkpoints.map((cp) => bare(cp.audit_state.secondary_merkle_root)),
        bare(bundle.manifest.audit_merkle_root_secondary),
      ]);
      expect(bare(bundle.manifest.audit_merkle_root)).toBe(
        toHex(
          protocolMerkleRootOfDigests(
            'sha256',
            strict.leaves.sha256.map((h) => fromHex(h)!),
          ),
        ),
      );
    },
  );

  it.each(cases.flatMap((fc) => WIRES.map((wire) => [fc.name, wire, fc] as const)))(
    '%s %s: hands the signature primitive exactly the calls the engine makes',
    (_name, wire, fc) => {
      const { backend: recording, calls } = recordingBackend(backend);
      const verifier = createVerifier({ mode: 'hybrid_preferred', backend: recording });
      if (!verifier.ok) throw new Error(verifier.error.message);
      expect(verifier.value.verify(readRequest(wire, fc.bodies[wire])).verified).toBe(true);
      const strict = strictFloorWork(fc, wire, canonicalWriter);
      const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
      const callsOf = (m: Uint8Array[], k: Uint8Array[], s: Uint8Array[]) =>
        m.map((message, i) => `${hex(message)}|${hex(k[i]!)}|${hex(s[i]!)}`).sort();
      expect(calls.length).toBeGreaterThan(4);
      expect(callsOf(strict.messages, strict.publicKeys, strict.signatures)).toStrictEqual(
        callsOf(
          calls.map((c) => c.message),
          calls.map((c) => c.publicKey),
          calls.map((c) => c.signature),
        ),
      );
    },
  );

  it.each(cases.map((fc) => [fc.name, fc] as const))(
    '%s: JSON.stringify writes as many bytes as the canonical writer, and the floor hashes what it reads',
    (_name, fc) => {
      const written = strictFloorWork(fc, 'JSON').bytesWritten;
      expect(written).toBe(strictFloorWork(fc, 'JSON', canonicalWriter).bytesWritten);
      expect(written).toBeGreaterThan(1000);
      const changed = (fc.bodies.JSON as string).replace('"step_1_done"', '"step_1_dona"');
      expect(changed).not.toBe(fc.bodies.JSON);
      const other = strictFloorWork(
        { ...fc, bodies: { ...fc.bodies, JSON: changed } },
        'JSON',
        canonicalWriter,
      );
      expect(other.leaves.sha256[0]).not.toBe(strictFloorWork(fc, 'JSON', canonicalWriter).leaves.sha256[0]);
    },
  );
});

describe("the strict floor's Merkle prefix roots", () => {
  it.each(['sha256', 'sha3-256'] as const)(
    "%s: every prefix root equals core's root of that prefix",
    (alg) => {
      const leaves = Array.from({ length: 21 }, (_, i) => Buffer.alloc(32, i + 1));
      const tree = new PrefixRoots(alg);
      leaves.forEach((leaf, i) => {
        tree.push(leaf);
        expect(tree.root().toString('hex')).toBe(
          toHex(protocolMerkleRootOfDigests(alg, leaves.slice(0, i + 1))),
        );
      });
    },
  );
});
