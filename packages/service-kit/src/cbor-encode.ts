// Deterministic CBOR writing of JSON-shaped values, straight into one growing buffer. PROTOCOL §8.2 (the
// upstream encoder's rules), P83 (a direct writer instead of a copy of the value handed to cbor-x).
import { CborError } from './cbor-error.ts';

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Keys whose base64 text the upstream encoder carries as raw bytes (PROTOCOL §8.2 `jsonToCborPayload`). */
const BYTE_KEYS = new Set(['public_key_b64', 'sig_b64']);
/** Strings up to this length are written by a JavaScript loop while they are ASCII (no native call). */
const SHORT_TEXT = 64;
const TWO_POW_32 = 4_294_967_296;
/** The shared buffer's size, and the most it keeps between calls (a large reply's growth is given back). */
const INITIAL_BUFFER = 8192;
const KEPT_BUFFER = 1 << 20;

const MAJOR_UNSIGNED = 0x00;
const MAJOR_NEGATIVE = 0x20;
const MAJOR_BYTES = 0x40;
const MAJOR_TEXT = 0x60;
const MAJOR_ARRAY = 0x80;
const MAJOR_MAP = 0xa0;
const FALSE = 0xf4;
const TRUE = 0xf5;
const NULL = 0xf6;

/** A map member as written: its (possibly renamed) key, the key's UTF-8 length, and the value. */
interface Member {
  readonly key: string;
  readonly size: number;
  readonly value: unknown;
}

/** UTF-8 length of `text`, counted in JavaScript while it is ASCII. */
function utf8Length(text: string): number {
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) >= 0x80) return Buffer.byteLength(text, 'utf8');
  }
  return text.length;
}

function isAscii(text: string, size: number): boolean {
  return text.length === size;
}

/**
 * The upstream encoder's canonical order: shorter encoded key first, then bytewise (RFC 7049 §3.9, the
 * CTAP2 order; not RFC 8949 §4.2.1's plain bytewise order).
 */
function byCanonicalKey(a: Member, b: Member): number {
  if (a.size !== b.size) return a.size - b.size;
  // ASCII: code-unit order is byte order. Otherwise (surrogates sort apart from UTF-8) compare the bytes.
  if (isAscii(a.key, a.size) && isAscii(b.key, b.size)) return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
  return Buffer.compare(Buffer.from(a.key, 'utf8'), Buffer.from(b.key, 'utf8'));
}

/** The members of an object as they are written: undefined ones dropped, base64 keys renamed, sorted. */
function membersOf(source: Record<string, unknown>): Member[] {
  const members: Member[] = [];
  for (const key of Object.keys(source)) {
    const value = source[key];
    if (value === undefined) continue;
    if (BYTE_KEYS.has(key) && typeof value === 'string' && STRICT_BASE64.test(value)) {
      const bare = key.slice(0, -4);
      // A member already named `bare` would collide with the renamed one: this one then stays text (P83).
      if (!Object.hasOwn(source, bare) || source[bare] === undefined) {
        members.push({ key: bare, size: bare.length, value: Buffer.from(value, 'base64') });
        continue;
      }
    }
    members.push({ key, size: utf8Length(key), value });
  }
  if (members.length > 1) members.sort(byCanonicalKey);
  return members;
}

/** One encoding in progress: a growing buffer and the write position. */
class CborWriter {
  private buf: Buffer = Buffer.allocUnsafeSlow(INITIAL_BUFFER);
  private pos = 0;

  /** The encoding of `value`, in a buffer of its own (never a view of this writer's or a pooled one). */
  encode(value: unknown): Buffer {
    this.pos = 0;
    this.write(value);
    const out = Buffer.allocUnsafeSlow(this.pos);
    this.buf.copy(out, 0, 0, this.pos);
    if (this.buf.length > KEPT_BUFFER) this.buf = Buffer.allocUnsafeSlow(INITIAL_BUFFER);
    return out;
  }

  private reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }

  /** A head with the smallest argument encoding (RFC 8949 §4.2.1, PROTOCOL §8.2). */
  private head(major: number, argument: number): void {
    this.reserve(9);
    const buf = this.buf;
    let pos = this.pos;
    if (argument < 24) buf[pos++] = major | argument;
    else if (argument < 0x100) {
      buf[pos++] = major | 24;
      buf[pos++] = argument;
    } else if (argument < 0x10000) {
      buf[pos++] = major | 25;
      buf.writeUInt16BE(argument, pos);
      pos += 2;
    } else if (argument < TWO_POW_32) {
      buf[pos++] = major | 26;
      buf.writeUInt32BE(argument, pos);
      pos += 4;
    } else {
      buf[pos++] = major | 27;
      buf.writeUInt32BE(Math.floor(argument / TWO_POW_32), pos);
      buf.writeUInt32BE(argument % TWO_POW_32, pos + 4);
      pos += 8;
    }
    this.pos = pos;
  }

  private text(value: string): void {
    const length = value.length;
    if (length <= SHORT_TEXT) {
      this.reserve(2 + length);
      const buf = this.buf;
      const start = this.pos;
      let pos = start + (length < 24 ? 1 : 2);
      let i = 0;
      for (; i < length; i++) {
        const code = value.charCodeAt(i);
        if (code >= 0x80) break;
        buf[pos++] = code;
      }
      if (i === length) {
        if (length < 24) buf[start] = MAJOR_TEXT | length;
        else {
          buf[start] = MAJOR_TEXT | 24;
          buf[start + 1] = length;
        }
        this.pos = pos;
        return;
      }
    }
    // Not ASCII: lone surrogates become U+FFFD (CBOR text is UTF-8; P83).
    const size = Buffer.byteLength(value, 'utf8');
    this.head(MAJOR_TEXT, size);
    this.reserve(size);
    this.pos += this.buf.write(value, this.pos, size, 'utf8');
  }

  private bytes(value: Uint8Array): void {
    this.head(MAJOR_BYTES, value.length);
    this.reserve(value.length);
    this.buf.set(value, this.pos);
    this.pos += value.length;
  }

  private write(value: unknown): void {
    switch (typeof value) {
      case 'string':
        this.text(value);
        return;
      case 'number':
        if (!Number.isSafeInteger(value)) throw new CborError(`CBOR carries integers only (got ${value})`);
        if (value >= 0) this.head(MAJOR_UNSIGNED, value);
        else this.head(MAJOR_NEGATIVE, -1 - value);
        return;
      case 'boolean':
        this.reserve(1);
        this.buf[this.pos++] = value ? TRUE : FALSE;
        return;
      case 'object':
        if (value === null) {
          this.reserve(1);
          this.buf[this.pos++] = NULL;
        } else this.writeObject(value);
        return;
      default:
        throw new CborError(`value of type ${typeof value} cannot be encoded`);
    }
  }

  private writeObject(value: object): void {
    if (Array.isArray(value)) {
      this.head(MAJOR_ARRAY, value.length);
      // JSON's reading of an array: an undefined item (or a hole) is null.
      for (let i = 0; i < value.length; i++) this.write(value[i] ?? null);
      return;
    }
    if (value instanceof Uint8Array) {
      this.bytes(value);
      return;
    }
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') {
      this.write(toJSON.call(value));
      return;
    }
    const members = membersOf(value as Record<string, unknown>);
    this.head(MAJOR_MAP, members.length);
    for (const member of members) {
      this.text(member.key);
      this.write(member.value);
    }
  }
}

const shared = new CborWriter();
/** Set while `shared` is writing: a toJSON that encodes CBOR itself gets a writer of its own. */
let busy = false;

/**
 * Encodes plain JSON values as deterministic CBOR (PROTOCOL §8.2): definite lengths, smallest heads,
 * integers only (floats refused), keys in canonical order, members with undefined values dropped,
 * `sig_b64` / `public_key_b64` base64 text as raw bytes under `sig` / `public_key`. The result owns
 * its memory, so it can be kept or transferred to another thread.
 */
export function encodeCbor(value: unknown): Buffer {
  if (busy) return new CborWriter().encode(value);
  busy = true;
  try {
    return shared.encode(value);
  } finally {
    busy = false;
  }
}
