// Test support for the "computed only when asked" tests of the whole-bundle hashes (P74, P123): node:crypto with
// every digest of one algorithm, one-shot or streamed, recorded by the number of bytes it covered. A vi.mock
// factory for 'node:crypto' passes the real module in; this file imports nothing of node:crypto at run time.
import type * as NodeCrypto from 'node:crypto';

type Crypto = typeof NodeCrypto;

const size = (data: unknown): number =>
  typeof data === 'string' ? Buffer.byteLength(data, 'utf8') : (data as ArrayBufferView).byteLength;

/** `real` with `hash` and `createHash` pushing the bytes each `alg` digest covered onto `covered`. */
export function recordingDigests(real: Crypto, alg: string, covered: number[]): Crypto {
  const hash: Crypto['hash'] = ((algorithm: string, data: never, encoding?: never) => {
    if (algorithm === alg) covered.push(size(data));
    return real.hash(algorithm, data, encoding);
  }) as Crypto['hash'];
  const createHash: Crypto['createHash'] = (algorithm, options) => {
    const hasher = real.createHash(algorithm, options);
    if (algorithm !== alg) return hasher;
    let bytes = 0;
    const update = hasher.update.bind(hasher) as (data: unknown, encoding?: unknown) => typeof hasher;
    const digest = hasher.digest.bind(hasher) as (encoding?: unknown) => unknown;
    Object.assign(hasher, {
      update: (data: unknown, encoding?: unknown) => {
        bytes += size(data);
        return update(data, encoding);
      },
      digest: (encoding?: unknown) => {
        covered.push(bytes);
        return digest(encoding);
      },
    });
    return hasher;
  };
  return { ...real, hash, createHash };
}
