// The signer key directory of a V2 bundle: passport `keys`, then RPR `binding_keys`, looked up by kid.
// PROTOCOL §4.4–4.6; DECISIONS D8 (lookup order, kid derivation E303, strict base64 and exact lengths).
import { ALGORITHM_SIZES, deriveKid, type SigningAlg } from '../../crypto/index.ts';
import { decodeBase64StrictShared } from '../../encoding/base64.ts';
import { isRecord, type JsonRecord, propString } from '../json.ts';

export interface KeyRecord {
  readonly kid: string;
  readonly alg: string;
  readonly source: 'passport' | 'rpr';
  readonly entry: JsonRecord;
}

/** A key's raw bytes when usable, else why not; and whether its kid matches its derivation. */
export interface DecodedKey {
  readonly publicKey?: Uint8Array;
  readonly problem?: string;
  readonly kidMatches: boolean;
}

function isSupportedAlg(alg: string): alg is SigningAlg {
  return Object.hasOwn(ALGORITHM_SIZES, alg);
}

export class KeyDirectory {
  /** Every well-formed key entry, passport keys first. */
  readonly records: readonly KeyRecord[];
  private readonly byKid = new Map<string, KeyRecord>();
  private readonly decoded = new Map<KeyRecord, DecodedKey>();

  constructor(passportKeys: readonly unknown[] | undefined, rprKeys: readonly unknown[] | undefined) {
    const records: KeyRecord[] = [];
    const add = (list: readonly unknown[] | undefined, source: KeyRecord['source']) => {
      for (const entry of list ?? []) {
        if (!isRecord(entry)) continue;
        const kid = propString(entry, 'kid');
        const alg = propString(entry, 'alg');
        if (kid === undefined || alg === undefined) continue;
        const record: KeyRecord = { kid, alg, source, entry };
        records.push(record);
        // First match wins: passport before RPR, earlier before later (PROTOCOL §4.6).
        if (!this.byKid.has(kid)) this.byKid.set(kid, record);
      }
    };
    add(passportKeys, 'passport');
    add(rprKeys, 'rpr');
    this.records = records;
  }

  find(kid: unknown): KeyRecord | undefined {
    return typeof kid === 'string' ? this.byKid.get(kid) : undefined;
  }

  /** Decodes a key once: strict base64, exact length for its algorithm, kid re-derived (D8). */
  decode(record: KeyRecord): DecodedKey {
    const cached = this.decoded.get(record);
    if (cached !== undefined) return cached;
    let result: DecodedKey;
    const alg = record.alg;
    if (!isSupportedAlg(alg)) {
      result = {
        problem: `key ${record.kid} uses algorithm ${alg}, which this verifier does not implement`,
        kidMatches: true,
      };
    } else {
      const text = propString(record.entry, 'public_key_b64');
      const bytes = text === undefined ? undefined : decodeBase64StrictShared(text);
      const size = ALGORITHM_SIZES[alg].publicKey;
      if (bytes === undefined || bytes.length !== size) {
        result = {
          problem: `key ${record.kid}: public_key_b64 is not strict base64 of a ${size}-byte ${alg} public key`,
          kidMatches: true,
        };
      } else {
        result = { publicKey: bytes, kidMatches: deriveKid(alg, bytes) === record.kid };
      }
    }
    this.decoded.set(record, result);
    return result;
  }

  /** Whether the passport lists a key of this algorithm (downgrade detection, D9). */
  passportHolds(alg: string): boolean {
    return this.records.some((r) => r.source === 'passport' && r.alg === alg);
  }
}
