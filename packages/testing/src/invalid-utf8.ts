// Input that is not UTF-8 where a signed text holds U+FFFD: what a lenient decoder reads back as the signed text, and
// every strict reader of the protocol refuses (P220, P232).

/** `bytes` with every U+FFFD (EF BF BD) replaced by the single byte FF, which is no UTF-8 at all. */
export function replacementCharAsFF(bytes: Uint8Array): Buffer {
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0xef && bytes[i + 1] === 0xbf && bytes[i + 2] === 0xbd) {
      out.push(0xff);
      i += 2;
    } else out.push(bytes[i] as number);
  }
  return Buffer.from(out);
}
