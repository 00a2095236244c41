// Hostile input never makes the verifier throw, and no mutation of a signed byte ever verifies.
// CONTRIBUTING (public API never throws), DECISIONS D2 (bad numbers/depth are codes), D5–D8 (what is signed).
// Budget: numRuns 200 per property; raise with FUZZ_RUNS=<n>.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  clone,
  HAS_SHARED_VECTORS,
  type J,
  type JsonPath,
  jsonPaths,
  makeVerifier,
  o,
  readShared,
  upstream,
  V1_GOLDEN,
} from './test-support.ts';
import type { VerifyResponse } from './types.ts';

const RUNS = Number(process.env['FUZZ_RUNS'] ?? 200);

function wellFormed(response: VerifyResponse): void {
  expect(typeof response.verified).toBe('boolean');
  expect(typeof response.version).toBe('string');
  if (!response.verified) {
    expect(response.errors?.length).toBeGreaterThan(0);
    expect(response.error_details?.length).toBe(response.errors?.length);
  }
  for (const detail of response.error_details ?? []) expect(detail.code).toMatch(/^(PROTO|DCP)-E\d{3}$/);
}

type Path = JsonPath;

function parentOf(root: J, path: Path): Record<string | number, unknown> {
  let node: unknown = root;
  for (const step of path.slice(0, -1)) node = (node as Record<string | number, unknown>)[step];
  return node as Record<string | number, unknown>;
}

type Mutation =
  | { kind: 'replace'; value: unknown }
  | { kind: 'delete' }
  | { kind: 'add'; key: string; value: unknown };

/** Applies a mutation; false when it changes nothing (an equal replacement). */
function mutate(root: J, path: Path, mutation: Mutation): boolean {
  const parent = parentOf(root, path);
  const key = path[path.length - 1]!;
  const before = JSON.stringify(root);
  if (mutation.kind === 'replace') parent[key] = mutation.value;
  else if (mutation.kind === 'delete') {
    if (Array.isArray(parent)) parent.splice(Number(key), 1);
    else delete parent[key];
  } else {
    const target = parent[key];
    if (typeof target !== 'object' || target === null) return false;
    if (Array.isArray(target)) target.push(mutation.value);
    else (target as Record<string, unknown>)[mutation.key] = mutation.value;
  }
  return JSON.stringify(root) !== before;
}

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('replace' as const), value: fc.jsonValue({ maxDepth: 3 }) }),
  fc.record({ kind: fc.constant('delete' as const) }),
  fc.record({
    kind: fc.constant('add' as const),
    key: fc.string({ maxLength: 12 }),
    value: fc.jsonValue({ maxDepth: 2 }),
  }),
);

describe('hostile input', () => {
  const verifier = makeVerifier();

  it('arbitrary JSON requests and signed bundles never throw and never verify', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.jsonValue({ maxDepth: 6 }), (request, signed) => {
        for (const input of [
          request,
          { signed_bundle: signed },
          { signed_bundle: { bundle: signed, signature: request } },
        ]) {
          const response = verifier.verify(input);
          wellFormed(response);
          expect(response.verified).toBe(false);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('non-JSON JavaScript values never throw either', () => {
    const values: unknown[] = [
      Number.NaN,
      Number.POSITIVE_INFINITY,
      10n ** 40n,
      Symbol('x'),
      () => 1,
      new Date(),
      new Map(),
      Object.create(null),
    ];
    for (const v of values) {
      wellFormed(verifier.verify(v));
      wellFormed(verifier.verify({ signed_bundle: v }));
      wellFormed(
        verifier.verify({
          signed_bundle: {
            bundle: { dcp_bundle_version: '2.0', manifest: v },
            signature: { composite_sig: v },
          },
        }),
      );
    }
    const cyclic: Record<string, unknown> = { dcp_bundle_version: '2.0' };
    cyclic['manifest'] = cyclic;
    wellFormed(verifier.verify({ signed_bundle: { bundle: cyclic, signature: {} } }));
  });

  it('depth 1000, huge integers and 20,000 entries are verdicts, not exceptions', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 1000; i++) deep = [deep];
    const response = verifier.verify({
      signed_bundle: { bundle: { dcp_bundle_version: '2.0', manifest: deep }, signature: {} },
    });
    expect(response.verified).toBe(false);
    const huge = verifier.verify({
      signed_bundle: {
        bundle: { dcp_bundle_version: '2.0', manifest: { audit_count: 1e308 } },
        signature: {},
      },
    });
    expect(huge.verified).toBe(false);
    const many = verifier.verify({
      signed_bundle: {
        bundle: { dcp_bundle_version: '2.0', audit_entries: Array(20_000).fill({}) },
        signature: {},
      },
    });
    expect(many.error_details?.[0]?.message).toBe(
      'audit_entries holds 20000 entries; this verifier accepts at most 10000',
    );
  });
});

describe.skipIf(!HAS_SHARED_VECTORS)('mutations of valid bundles', () => {
  it('no change to a signed byte of a V2 bundle verifies (dual-hash bundle with checkpoints, dcp-ai)', () => {
    const verifier = makeVerifier({ profile: 'dcp-ai' });
    const base = upstream('dual_hash_checkpoints_signed_by_agent_keys');
    expect(verifier.verify({ signed_bundle: base }).verified).toBe(true);
    // Signed content: everything in `bundle` plus the bundle signature and manifest_hash. The bundle
    // object is open (PROTOCOL §6.1), so adding a top-level member is not a change to signed bytes.
    const targets = [
      ...jsonPaths(o(base['bundle']), ['bundle']).filter((p) => p.length > 1),
      ...jsonPaths(o(o(base['signature'])['composite_sig']), ['signature', 'composite_sig']),
      ['signature', 'manifest_hash'],
    ];
    fc.assert(
      fc.property(fc.nat({ max: targets.length - 1 }), mutationArb, (index, mutation) => {
        const signed = clone(base);
        const path = targets[index]!;
        // manifest_hash is optional metadata (D5): removing it drops a check, it changes no signed byte.
        if (mutation.kind === 'delete' && path[1] === 'manifest_hash') return;
        if (!mutate(signed, path, mutation)) return;
        const response = verifier.verify({ signed_bundle: signed });
        wellFormed(response);
        expect(response.verified, JSON.stringify({ path, mutation })).toBe(false);
      }),
      { numRuns: RUNS },
    );
  });

  it('no change to a signed byte of the V1 golden bundle verifies', () => {
    const verifier = makeVerifier();
    const base = readShared<J>(V1_GOLDEN);
    const targets = [
      ...jsonPaths(o(base['bundle']), ['bundle']).filter((p) => p.length > 1),
      ['signature', 'sig_b64'],
      ['signature', 'bundle_hash'],
      ['signature', 'merkle_root'],
      ['signature', 'signer', 'public_key_b64'],
    ];
    fc.assert(
      fc.property(fc.nat({ max: targets.length - 1 }), mutationArb, (index, mutation) => {
        const signed = clone(base);
        const path = targets[index]!;
        // A null merkle_root is allowed (D11): deleting or nulling it removes a check, not a signed byte.
        if (
          path[1] === 'merkle_root' &&
          (mutation.kind === 'delete' || (mutation.kind === 'replace' && mutation.value === null))
        )
          return;
        if (!mutate(signed, path, mutation)) return;
        const response = verifier.verify({ signed_bundle: signed });
        wellFormed(response);
        expect(response.verified, JSON.stringify({ path, mutation })).toBe(false);
      }),
      { numRuns: RUNS },
    );
  });
});
