// A small CBOR (RFC 8949) reader so the verify page can show a CBOR bundle it sends as-is to POST /verify.
// Issue 17 item 1 (JSON or CBOR); display only: the service remains the judge of strict CBOR.
import { toBase64 } from './bytes.js';

export function decodeCbor(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  const need = (n) => {
    if (at + n > bytes.length) throw new Error('CBOR: truncated');
  };
  const length = (info) => {
    if (info < 24) return info;
    const size = { 24: 1, 25: 2, 26: 4, 27: 8 }[info];
    if (size === undefined) throw new Error('CBOR: indefinite lengths are not supported');
    need(size);
    let value = 0;
    for (let i = 0; i < size; i++) value = value * 256 + bytes[at + i];
    at += size;
    return value;
  };
  const item = (depth) => {
    if (depth > 64) throw new Error('CBOR: nested too deeply');
    need(1);
    const first = bytes[at++];
    const major = first >> 5;
    const info = first & 31;
    if (major === 7) {
      if (info === 20) return false;
      if (info === 21) return true;
      if (info === 22 || info === 23) return null;
      if (info === 25) {
        need(2);
        const h = view.getUint16(at);
        at += 2;
        const exp = (h >> 10) & 31;
        const frac = h & 1023;
        const sign = h & 0x8000 ? -1 : 1;
        if (exp === 0) return sign * 2 ** -14 * (frac / 1024);
        if (exp === 31) return frac ? Number.NaN : sign * Number.POSITIVE_INFINITY;
        return sign * 2 ** (exp - 15) * (1 + frac / 1024);
      }
      if (info === 26) {
        need(4);
        at += 4;
        return view.getFloat32(at - 4);
      }
      if (info === 27) {
        need(8);
        at += 8;
        return view.getFloat64(at - 8);
      }
      throw new Error('CBOR: unsupported simple value');
    }
    const n = length(info);
    switch (major) {
      case 0:
        return n;
      case 1:
        return -1 - n;
      case 2:
        need(n);
        at += n;
        return bytes.slice(at - n, at);
      case 3:
        need(n);
        at += n;
        return new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(at - n, at));
      case 4:
        return Array.from({ length: n }, () => item(depth + 1));
      case 5: {
        const out = {};
        for (let i = 0; i < n; i++) {
          const key = String(item(depth + 1));
          const value = item(depth + 1);
          // PROTOCOL §8.2: a byte string under `k` is the base64 text under `k_b64` in the JSON form.
          if (value instanceof Uint8Array) out[`${key}_b64`] = toBase64(value);
          else out[key] = value;
        }
        return out;
      }
      default:
        return item(depth + 1); // a tag: show the tagged value
    }
  };
  const value = item(0);
  if (at !== bytes.length) throw new Error('CBOR: trailing bytes');
  return value;
}
