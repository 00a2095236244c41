// The strict protocol floor (P116): after reading the request, every step PROTOCOL.md and SPEC.md oblige a
// verifier of these V2 bundles to take besides the signatures themselves, each with the cheapest primitive
// Node offers, so that no verifier in Node can do less. The steps are listed once, in `strictSteps`, each
// with the section that obliges it. What the raw signature cost replays (bench/raw-replay.ts) is the signature
// set the engine verifies under the bench's mode (hybrid_preferred: a PQ half that is present is verified), so
// the floor builds exactly the messages, keys and signatures those calls take, and nothing else.
//
// Left out on purpose (P116): schema validation (in SPEC's checklist, but there is no minimal form of it to
// defend); the two whole-bundle hashes of today's protocol floor (PROTOCOL §6.3: no signature covers the whole
// bundle; SPEC's /verify answer has no bundle hash; only an anchor receipt needs one, P74); signature.manifest_hash
// (§6.3: unsigned, unchecked metadata); kid derivation (§4.4: recommended, not obliged); nonce and count
// comparisons and the policy's bookkeeping (string compares, no primitive worth a floor).
import { hash } from 'node:crypto';
import { type ContextName, contextString, DEFAULT_PROFILE } from '@proto/core';

/** Writes the bytes a hash or signature covers. The bench passes JSON.stringify (see P116), a test the
 * canonical writer. */
export type Writer = (value: unknown) => string;

type Json = Record<string, unknown>;
type Alg = 'sha256' | 'sha3-256';

/** What the strict floor computed, returned so that a test can hold it against the engine's own values. */
export interface StrictFloor {
  /** SHA-256 hex of each artifact's payload bytes, in ARTIFACTS order. */
  readonly payloadHashes: string[];
  /** SHA3-256 hex of the intent payload bytes (undefined: no entry carries intent_hash_secondary). */
  readonly intentHashSecondary: string | undefined;
  /** Hex leaves of the audit entries (SHA-256; SHA3-256 when the bundle has a secondary chain or root). */
  readonly leaves: Readonly<Record<Alg, string[]>>;
  /** Roots (hex) for each checkpoint, in order, then the manifest's over every entry. */
  readonly roots: Readonly<Record<Alg, string[]>>;
  /** The messages handed to the signature primitive, in the order of the calls. */
  readonly messages: Uint8Array[];
  readonly signatures: Uint8Array[];
  readonly publicKeys: Uint8Array[];
  /** UTF-8 bytes written for hashes and signed messages. */
  readonly bytesWritten: number;
}

const ARTIFACTS: readonly [string, ContextName][] = [
  ['responsible_principal_record', 'ResponsiblePrincipal'],
  ['agent_passport', 'AgentPassport'],
  ['intent', 'Intent'],
  ['policy_decision', 'PolicyDecision'],
];

/** Ed25519's signature length: the room a DSM keeps so the PQ message is the same buffer, extended. */
const CLASSICAL_SIG_BYTES = 64;

const prefixOf = (name: ContextName) => Buffer.from(`${contextString(DEFAULT_PROFILE, name)}\0`);
const PREFIXES = new Map<ContextName, Buffer>(
  (['Bundle', 'AuditEvent', ...ARTIFACTS.map(([, c]) => c)] as ContextName[]).map((c) => [c, prefixOf(c)]),
);

/**
 * Merkle roots of every prefix of a leaf list under PROTOCOL §2.2 (odd node paired with itself, one leaf is
 * its own root): complete nodes are hashed once as their pairs arrive, and a prefix's root hashes only its
 * right edge, so a checkpoint per entry costs O(log n) hashes each.
 */
export class PrefixRoots {
  private readonly levels: Buffer[][] = [];
  /** Both children of an inner node, side by side: H(left ‖ right) without a new buffer per node. */
  private readonly pair = Buffer.allocUnsafe(64);
  private readonly alg: Alg;
  constructor(alg: Alg) {
    this.alg = alg;
  }

  private node(left: Buffer, right: Buffer): Buffer {
    left.copy(this.pair, 0);
    right.copy(this.pair, 32);
    return hash(this.alg, this.pair, 'buffer');
  }

  push(leaf: Buffer): void {
    let node = leaf;
    for (let level = 0; ; level++) {
      const nodes = this.levels[level] ?? [];
      this.levels[level] = nodes;
      nodes.push(node);
      if (nodes.length % 2 === 1) return;
      node = this.node(nodes[nodes.length - 2]!, node);
    }
  }

  /** The root of the leaves pushed so far: the complete nodes of each level, plus the right edge's. */
  root(): Buffer {
    let carry: Buffer | undefined;
    for (let level = 0; ; level++) {
      const nodes = this.levels[level] ?? [];
      if (nodes.length + (carry === undefined ? 0 : 1) === 1) return carry ?? nodes[0]!;
      if (nodes.length % 2 === 1) {
        const last = nodes[nodes.length - 1]!;
        carry = this.node(last, carry ?? last);
      } else if (carry !== undefined) {
        carry = this.node(carry, carry);
      }
    }
  }
}

/** UTF-8 of `context ‖ 0x00 ‖ text` written once, with room for the classical signature after it. */
function dsmOf(context: ContextName, text: string): { dsm: Buffer; payload: Buffer } {
  const prefix = PREFIXES.get(context)!;
  const length = Buffer.byteLength(text);
  const buffer = Buffer.allocUnsafe(prefix.length + length + CLASSICAL_SIG_BYTES);
  prefix.copy(buffer);
  buffer.write(text, prefix.length);
  return {
    dsm: buffer.subarray(0, prefix.length + length),
    payload: buffer.subarray(prefix.length, prefix.length + length),
  };
}

/** The strict floor's steps on a request already read (JSON.parse or the strict CBOR decode). */
export function strictSteps(request: unknown, write: Writer): StrictFloor {
  const signed = (request as Json)['signed_bundle'] as Json;
  const bundle = signed['bundle'] as Json;
  const manifest = bundle['manifest'] as Json;
  const entries = bundle['audit_entries'] as Json[];
  const checkpoints = (bundle['pq_checkpoints'] ?? []) as Json[];
  const messages: Uint8Array[] = [];
  const signatures: Uint8Array[] = [];
  const publicKeys: Uint8Array[] = [];
  let bytesWritten = 0;

  // PROTOCOL §4.6: keys are found by kid in the passport's keys, then the RPR's binding_keys; each key used is
  // base64-decoded once (§4.3 raw keys) before it reaches the primitive.
  const keyText = new Map<string, string>();
  const payloadOf = (field: string) => (bundle[field] as Json)['payload'] as Json;
  for (const list of [
    payloadOf('agent_passport')['keys'],
    payloadOf('responsible_principal_record')['binding_keys'],
  ])
    for (const k of (list ?? []) as Json[])
      if (!keyText.has(k['kid'] as string)) keyText.set(k['kid'] as string, k['public_key_b64'] as string);
  const decodedKeys = new Map<string, Buffer>();
  const keyOf = (kid: string) => {
    let key = decodedKeys.get(kid);
    if (key === undefined) {
      key = Buffer.from(keyText.get(kid)!, 'base64');
      decodedKeys.set(kid, key);
    }
    return key;
  };

  // PROTOCOL §4.2, §3: the classical half signs the DSM; a pq_over_classical PQ half signs DSM ‖ the classical
  // signature's raw bytes (§4.3: sig_b64 decoded). SPEC "Verification modes": a present PQ half is verified.
  const composite = (sig: Json, dsm: Buffer) => {
    const classical = sig['classical'] as Json;
    const classicalSig = Buffer.from(classical['sig_b64'] as string, 'base64');
    messages.push(dsm);
    signatures.push(classicalSig);
    publicKeys.push(keyOf(classical['kid'] as string));
    const pq = sig['pq'] as Json | null;
    if (pq === null || pq === undefined) return;
    let message = dsm;
    if (sig['binding'] === 'pq_over_classical') {
      message =
        classicalSig.length <= CLASSICAL_SIG_BYTES
          ? Buffer.from(dsm.buffer, dsm.byteOffset, dsm.length + classicalSig.length)
          : Buffer.concat([dsm, classicalSig]);
      classicalSig.copy(message, dsm.length);
    }
    messages.push(message);
    signatures.push(Buffer.from(pq['sig_b64'] as string, 'base64'));
    publicKeys.push(keyOf(pq['kid'] as string));
  };

  // PROTOCOL §6.3, §6.10 step 7': the bundle signature covers the DSM of jcs(manifest) under Bundle.
  const manifestText = write(manifest);
  const manifestDsm = dsmOf('Bundle', manifestText);
  bytesWritten += manifestDsm.payload.length;
  composite((signed['signature'] as Json)['composite_sig'] as Json, manifestDsm.dsm);

  // PROTOCOL §6.3 and §6.10 steps 2 and 4: each payload's SHA-256 is its payload_hash and the manifest's hash
  // of it; its composite signature (SPEC "signature check", DECISIONS D8) covers the DSM under its context.
  const payloadHashes: string[] = [];
  let intentBytes: Buffer | undefined;
  for (const [field, context] of ARTIFACTS) {
    const envelope = bundle[field] as Json;
    const { dsm, payload } = dsmOf(context, write(envelope['payload']));
    bytesWritten += payload.length;
    payloadHashes.push(hash('sha256', payload, 'hex'));
    if (field === 'intent') intentBytes = payload;
    composite(envelope['composite_sig'] as Json, dsm);
  }

  // PROTOCOL §6.5 / SPEC "Audit entry hash chains": every entry's SHA-256 is the next prev_hash and its Merkle
  // leaf (§2.2, §6.10 steps 4 and 9); SPEC: "Both chains must be verified independently", so its SHA3-256 too
  // when the bundle carries the secondary chain or root.
  const dual =
    manifest['audit_merkle_root_secondary'] !== undefined ||
    entries.some((e) => e['prev_hash_secondary'] !== undefined && e['prev_hash_secondary'] !== 'GENESIS');
  const algs: Alg[] = dual ? ['sha256', 'sha3-256'] : ['sha256'];
  const trees = new Map<Alg, PrefixRoots>(algs.map((alg) => [alg, new PrefixRoots(alg)]));
  const leaves: Record<Alg, string[]> = { sha256: [], 'sha3-256': [] };
  const roots: Record<Alg, string[]> = { sha256: [], 'sha3-256': [] };
  const leafBytes: Record<Alg, Buffer[]> = { sha256: [], 'sha3-256': [] };
  for (const entry of entries) {
    const bytes = Buffer.from(write(entry));
    bytesWritten += bytes.length;
    for (const alg of algs) {
      const leaf = hash(alg, bytes, 'buffer');
      leafBytes[alg].push(leaf);
      leaves[alg].push(leaf.toString('hex'));
    }
  }

  // SPEC "intent_hash check" / PROTOCOL §6.5: intent_hash is the intent payload's SHA-256 (computed above);
  // intent_hash_secondary its SHA3-256.
  const intentHashSecondary = entries.some((e) => e['intent_hash_secondary'] !== undefined)
    ? hash('sha3-256', intentBytes!, 'hex')
    : undefined;

  // SPEC "Security tiers" (maximum: verification of the checkpoint) and PROTOCOL §6.6: each checkpoint's roots
  // over the entries it covers, and its composite signature over jcs(checkpoint without composite_sig) under
  // AuditEvent. The raw cost replays these signatures at every tier (DECISIONS D6), and a checkpoint's
  // signature proves nothing unless its roots are held against the entries, so the floor does both.
  let covered = 0;
  const pushUpTo = (count: number) => {
    for (; covered < count; covered++) for (const alg of algs) trees.get(alg)!.push(leafBytes[alg][covered]!);
  };
  for (const cp of checkpoints) {
    const state = cp['audit_state'] as Json | undefined;
    if (state === undefined) throw new Error('the strict floor reads SPEC-shape checkpoints only');
    pushUpTo(state['entry_count'] as number);
    for (const alg of algs) roots[alg].push(trees.get(alg)!.root().toString('hex'));
    const { composite_sig: sig, ...unsigned } = cp;
    const { dsm, payload } = dsmOf('AuditEvent', write(unsigned));
    bytesWritten += payload.length;
    composite(sig as Json, dsm);
  }
  // PROTOCOL §6.10 step 4 (audit_merkle_root) and the secondary root (§6.10's full verification, D7).
  pushUpTo(entries.length);
  for (const alg of algs) roots[alg].push(trees.get(alg)!.root().toString('hex'));

  return {
    payloadHashes,
    intentHashSecondary,
    leaves,
    roots,
    messages,
    signatures,
    publicKeys,
    bytesWritten,
  };
}
