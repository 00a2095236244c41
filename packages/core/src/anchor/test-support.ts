// Test helpers for the anchoring tests: deterministic bundle hashes and a hand-serialized Bitcoin transaction.
// Used by anchor.test.ts and check.test.ts (SPEC.md "Anchoring formats", DECISIONS D19).
import { createHash } from 'node:crypto';
import { concatBytes } from '../encoding/index.ts';
import { opReturnScript } from './payload.ts';

export const sha = (data: Uint8Array | string): Buffer => createHash('sha256').update(data).digest();

/** `sha256:` + SHA-256 of the text `bundle <i>`. */
export const bundleHash = (i: number): string => `sha256:${sha(`bundle ${i}`).toString('hex')}`;

/** A hand-serialized transaction: one input, a payment and an OP_RETURN output; optionally with a witness. */
export function handMadeTransaction(
  opReturn: Uint8Array,
  witness: boolean,
): { raw: Uint8Array; txid: string } {
  const u32 = (n: number) =>
    new Uint8Array([n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff]);
  const u64 = (n: bigint) => {
    const out = new Uint8Array(8);
    for (let i = 0; i < 8; i++) out[i] = Number((n >> BigInt(8 * i)) & 0xffn);
    return out;
  };
  const script = (opReturnScript(opReturn) as { ok: true; value: Uint8Array }).value;
  const payTo = new Uint8Array([0x00, 0x14, ...new Uint8Array(20).fill(7)]);
  const body = concatBytes(
    new Uint8Array([1]),
    new Uint8Array(32).fill(0x11),
    u32(1),
    new Uint8Array([0]),
    u32(0xfffffffd),
    new Uint8Array([2]),
    u64(0n),
    new Uint8Array([script.byteLength]),
    script,
    u64(50_000n),
    new Uint8Array([payTo.byteLength]),
    payTo,
  );
  const version = u32(2);
  const lock = u32(0);
  const stripped = concatBytes(version, body, lock);
  const txid = Buffer.from(sha(sha(stripped)))
    .reverse()
    .toString('hex');
  if (!witness) return { raw: stripped, txid };
  const wit = concatBytes(new Uint8Array([2, 3]), new Uint8Array([1, 2, 3]), new Uint8Array([1, 9]));
  return { raw: concatBytes(version, new Uint8Array([0, 1]), body, wit, lock), txid };
}
