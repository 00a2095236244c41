// Bitcoin OP_RETURN anchor payloads: `proto:v2:` + 64 hex (73 ASCII bytes) in one data output, and their parsing.
// SPEC.md "Anchoring formats" and Versioning 6 (prefixes), DECISIONS D1 (profile prefixes) and D19 (73 bytes, one output).
import { toHex, utf8Encode } from '../encoding/index.ts';
import { DEFAULT_PROFILE, PROFILES, type ProfileName, type ProtocolProfile } from '../profile.ts';
import { coreError, err, ok, type Result } from '../result.ts';

export type AnchorPayloadVersion = 'v1' | 'v2';

/** What an anchor payload says: the committed 32-byte value, and the prefix it came with (if any). */
export interface AnchorPayload {
  /** The committed value (a batch root or a bundle digest), 64 lowercase hex. */
  readonly hex: string;
  /** Profile and version of the prefix; both absent for a bare 32-byte payload (SPEC: prefix optional). */
  readonly profile?: ProfileName;
  readonly version?: AnchorPayloadVersion;
}

const OP_RETURN = 0x6a;
const OP_PUSHDATA1 = 0x4c;
const OP_PUSHDATA2 = 0x4d;
/** Policy limit of standard data-carrier outputs (bytes of data after OP_RETURN). */
export const MAX_OP_RETURN_DATA = 80;
const HEX64 = /^[0-9a-f]{64}$/;
const ASCII = new TextDecoder('ascii', { fatal: false });

/** `<prefix><64 hex>` as ASCII bytes: 73 bytes for `proto:v2:`, 71 for `dcp:v2:`. */
export function buildAnchorPayload(
  committedHex: string,
  profile: ProtocolProfile = DEFAULT_PROFILE,
  version: AnchorPayloadVersion = 'v2',
): Result<Uint8Array> {
  if (typeof committedHex !== 'string' || !HEX64.test(committedHex)) {
    return err(coreError('BUNDLE_SCHEMA_INVALID', 'the anchored value must be 64 lowercase hex'));
  }
  return ok(utf8Encode(profile.anchorPrefix[version] + committedHex));
}

/**
 * Reads a payload: `<prefix>:<v1|v2>:<64 lowercase hex>` under either profile (D1: verification accepts
 * both), or exactly 32 raw bytes. Anything else (other text, wrong length, uppercase hex) is an error.
 */
export function parseAnchorPayload(data: Uint8Array): Result<AnchorPayload> {
  if (data.byteLength === 32) return ok({ hex: toHex(data) });
  const text = ASCII.decode(data);
  for (const profile of Object.values(PROFILES)) {
    for (const version of ['v1', 'v2'] as const) {
      const prefix = profile.anchorPrefix[version];
      if (text.length === prefix.length + 64 && text.startsWith(prefix)) {
        const hex = text.slice(prefix.length);
        if (HEX64.test(hex)) return ok({ hex, profile: profile.name, version });
      }
    }
  }
  return err(coreError('BUNDLE_SCHEMA_INVALID', 'not an anchor payload (<prefix>:v2:<64 hex> or 32 bytes)'));
}

/** The locking script of a data-carrier output: OP_RETURN followed by one minimal push of `data`. */
export function opReturnScript(data: Uint8Array): Result<Uint8Array> {
  if (data.byteLength === 0 || data.byteLength > MAX_OP_RETURN_DATA) {
    return err(coreError('BUNDLE_SCHEMA_INVALID', `OP_RETURN data must be 1 to ${MAX_OP_RETURN_DATA} bytes`));
  }
  const push = data.byteLength <= 75 ? [data.byteLength] : [OP_PUSHDATA1, data.byteLength];
  return ok(new Uint8Array([OP_RETURN, ...push, ...data]));
}

/**
 * The data of an OP_RETURN script holding exactly one push (direct, PUSHDATA1 or PUSHDATA2), or
 * undefined for any other script. Non-minimal pushes are accepted: the bytes pushed are what count.
 */
export function opReturnData(script: Uint8Array): Uint8Array | undefined {
  if (script.byteLength < 2 || script[0] !== OP_RETURN) return undefined;
  const op = script[1] as number;
  let start: number;
  let length: number;
  if (op >= 1 && op <= 75) {
    start = 2;
    length = op;
  } else if (op === OP_PUSHDATA1 && script.byteLength >= 3) {
    start = 3;
    length = script[2] as number;
  } else if (op === OP_PUSHDATA2 && script.byteLength >= 4) {
    start = 4;
    length = (script[2] as number) | ((script[3] as number) << 8);
  } else {
    return undefined;
  }
  if (start + length !== script.byteLength) return undefined;
  return script.slice(start);
}
