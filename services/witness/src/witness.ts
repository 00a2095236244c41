// The witness's add-checkpoint step: parse, decide against the stored head (core's pure decision),
// cosign, and move the head by compare-and-swap before answering. c2sp.org/tlog-witness; issue 18 item 2;
// decisions P46 (cosignature/v1), P48 (the decision), P49 (state and the swap).
import {
  type CryptoBackend,
  cosignCheckpoint,
  decideAddCheckpoint,
  type ErrorName,
  formatSignatureLine,
  formatSignedNote,
  fromHex,
  parseAddCheckpointRequest,
  parseSignedNote,
  toHex,
  type WitnessedHead,
  type WitnessedLog,
} from '@proto/core';
import type { WitnessRepository } from '@proto/store';
import type { WitnessKey } from './witness-key.ts';

/** Why a request was refused, as counted in proto_witness_refused_total{reason}. */
export type RefusalReason =
  | 'malformed'
  | 'unknown_log'
  | 'bad_signature'
  | 'old_size_mismatch'
  | 'inconsistent';

export type AddCheckpointOutcome =
  | {
      readonly status: 200;
      readonly origin: string;
      readonly size: number;
      /** The cosignature line(s), each ending in a newline: the response body. */
      readonly body: string;
    }
  | {
      readonly status: 409;
      readonly reason: 'old_size_mismatch';
      readonly message: string;
      readonly knownSize: number;
    }
  | {
      readonly status: 403;
      readonly reason: 'bad_signature';
      readonly message: string;
      readonly signedBy?: undefined;
      /** The registry code of the refusal: which signature check failed (required, P213: no fallback guess). */
      readonly code: ErrorName;
    }
  | {
      readonly status: 400 | 404 | 422;
      readonly reason: Exclude<RefusalReason, 'old_size_mismatch' | 'bad_signature'>;
      readonly message: string;
      /** Set when the log's signature verified: the refused checkpoint may be evidence of misbehaviour. */
      readonly signedBy?: string;
    };

const REASON_BY_STATUS = {
  400: 'malformed',
  404: 'unknown_log',
  422: 'inconsistent',
} as const;

/** Rounds of read-decide-swap before giving up on a head that keeps moving under us. */
const SWAP_ATTEMPTS = 3;

export interface WitnessOptions {
  readonly repository: WitnessRepository;
  readonly logs: readonly WitnessedLog[];
  readonly key: WitnessKey;
  readonly backend: CryptoBackend;
  readonly clock: () => Date;
}

function storedHead(size: number, rootHex: string): WitnessedHead {
  const root = fromHex(rootHex);
  if (root === undefined) throw new Error('the stored witness root is not hex');
  return { size, root };
}

export class Witness {
  readonly #options: WitnessOptions;

  constructor(options: WitnessOptions) {
    this.#options = options;
  }

  get logs(): readonly WitnessedLog[] {
    return this.#options.logs;
  }

  /** Handles one add-checkpoint body; the head is persisted before a 200 outcome is returned. */
  async addCheckpoint(body: string): Promise<AddCheckpointOutcome> {
    const request = parseAddCheckpointRequest(body);
    if (!request.ok) return { status: 400, reason: 'malformed', message: request.error.message };
    const { logs, repository } = this.#options;
    // The origin is the checkpoint's first line; the decision re-checks everything against the signed text.
    const origin = request.value.checkpoint.slice(0, Math.max(0, request.value.checkpoint.indexOf('\n')));
    const log = logs.find((l) => l.origin === origin);
    for (let attempt = 0; ; attempt++) {
      const stored = log === undefined ? undefined : await repository.head(log.origin);
      const known = stored === undefined ? undefined : storedHead(stored.size, stored.rootHex);
      const decision = decideAddCheckpoint(request.value, logs, known);
      if (!decision.accept) {
        if (decision.status === 409)
          return {
            status: 409,
            reason: 'old_size_mismatch',
            message: decision.reason,
            knownSize: decision.knownSize,
          };
        if (decision.status === 403)
          return { status: 403, reason: 'bad_signature', message: decision.reason, code: decision.code };
        return {
          status: decision.status,
          reason: REASON_BY_STATUS[decision.status],
          message: decision.reason,
          ...(decision.status === 422 ? { signedBy: origin } : {}),
        };
      }
      const { checkpoint, text } = decision;
      if (log === undefined) throw new Error('a checkpoint of an unconfigured log was accepted');
      const line = this.#cosign(text);
      const next = {
        size: checkpoint.size,
        rootHex: toHex(checkpoint.root),
        checkpoint: this.#cosignedNote(request.value.checkpoint, log, line.signature),
      };
      const expected = stored === undefined ? undefined : { size: stored.size, rootHex: stored.rootHex };
      if (await repository.advance(checkpoint.origin, expected, next))
        return { status: 200, origin: checkpoint.origin, size: checkpoint.size, body: line.text };
      // Another request moved the head between our read and our swap: decide again against the new one
      // (which normally answers 409 with the size the winner stored).
      if (attempt + 1 >= SWAP_ATTEMPTS) {
        const now = await repository.head(checkpoint.origin);
        return {
          status: 409,
          reason: 'old_size_mismatch',
          message: 'the witnessed size changed while this request was checked',
          knownSize: now?.size ?? 0,
        };
      }
    }
  }

  /** The head cosigned last for `origin` (the monitoring checkpoint), if any. */
  async latest(origin: string): Promise<string | undefined> {
    return (await this.#options.repository.head(origin))?.checkpoint;
  }

  #cosign(text: string) {
    const { key, backend, clock } = this.#options;
    // cosignature/v1 needs a timestamp above zero (tlog-witness: "MUST NOT be zero").
    const timestamp = Math.max(1, Math.floor(clock().getTime() / 1000));
    const signed = cosignCheckpoint(text, key.cosigner, timestamp, backend);
    if (!signed.ok) throw new Error(`cosigning failed: ${signed.error.message}`);
    return { signature: signed.value, text: formatSignatureLine(signed.value) };
  }

  /** The checkpoint as stored for monitors: the log's own signature lines, then this witness's cosignature. */
  #cosignedNote(
    note: string,
    log: WitnessedLog,
    cosignature: Parameters<typeof formatSignatureLine>[0],
  ): string {
    const parsed = parseSignedNote(note);
    if (!parsed.ok) throw new Error(`a verified checkpoint did not parse: ${parsed.error.message}`);
    const own = parsed.value.signatures.filter((s) =>
      log.keys.some((k) => k.name === s.keyName && k.keyId === s.keyId),
    );
    return formatSignedNote({ text: parsed.value.text, signatures: [...own, cosignature] });
  }
}
