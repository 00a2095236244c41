// A verdict written to its wire bytes in the worker, when nothing on the main thread will change it: the
// main thread then sends the bytes as they are, with no structured clone of the response and no JSON or
// CBOR serialisation on the event loop. Issue 14 item 1, P68; D12 (response shape).
import type { VerifyResponse } from '@proto/core';
// The CBOR codec alone, not the package index (Fastify, pino, ioredis, prom-client): P72.
import { encodeCbor } from '@proto/service-kit/cbor';

/**
 * `json`: the /verify JSON body, byte for byte what Fastify's schema serializer writes for
 * `verifyResponseSchema` (its member order); `ndjson`: a batch line (JSON.stringify and a newline,
 * as the batch route writes); `cbor`: the deterministic CBOR of a /verify or batch answer.
 */
export type AnswerFormat = 'json' | 'ndjson' | 'cbor';

/** What the main thread's metrics and key directory read of a verdict it does not hold as an object. */
export interface AnswerSummary {
  readonly verified: boolean;
  readonly version: string;
  readonly resolvedTier?: string;
  readonly errorCodes: readonly string[];
}

export interface WiredAnswer {
  readonly format: AnswerFormat;
  /** Owns its memory (never a view of a pooled or shared buffer), so it can be transferred. */
  readonly bytes: Uint8Array;
  readonly summary: AnswerSummary;
}

const textEncoder = new TextEncoder();

/**
 * The members in the order fast-json-stringify writes `verifyResponseSchema`: its required members
 * first (verified, version, checks), then the others in the schema's order (resolved_tier, errors,
 * warnings, error_details; items of error_details: code, check, message, retryable). Absent members
 * stay absent. answer-wire.test.ts compares the bytes with the main thread's over HTTP.
 */
function inSchemaOrder(response: VerifyResponse): object {
  return {
    verified: response.verified,
    version: response.version,
    checks: response.checks,
    resolved_tier: response.resolved_tier,
    errors: response.errors,
    warnings: response.warnings,
    error_details: response.error_details?.map((d) => ({
      code: d.code,
      check: d.check,
      message: d.message,
      retryable: d.retryable,
    })),
  };
}

function bytesOf(response: VerifyResponse, format: AnswerFormat): Uint8Array {
  if (format === 'json') return textEncoder.encode(JSON.stringify(inSchemaOrder(response)));
  if (format === 'ndjson') return textEncoder.encode(`${JSON.stringify(response)}\n`);
  // encodeCbor's result owns its memory (P83), so it can be transferred as it is.
  return encodeCbor(response);
}

export function wiredAnswer(response: VerifyResponse, format: AnswerFormat): WiredAnswer {
  return {
    format,
    bytes: bytesOf(response, format),
    summary: {
      verified: response.verified,
      version: response.version,
      ...(response.resolved_tier === undefined ? {} : { resolvedTier: response.resolved_tier }),
      errorCodes: (response.error_details ?? []).map((d) => d.code),
    },
  };
}
