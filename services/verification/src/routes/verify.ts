// POST /verify: JSON or CBOR in and out, cache of time-independent analyses, verification in the
// worker pool. SPEC.md "POST /verify", DECISIONS D12 (response shape), PROTOCOL §8.2–8.3.
import type { Verifier } from '@proto/core';
import {
  CBOR_CONTENT_TYPE,
  DEFAULT_BODY_LIMIT,
  errorResponses,
  prefersCbor,
  protocolError,
  rateLimitPerIp,
  varyOnAccept,
} from '@proto/service-kit';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { WiredAnswer } from '../answer-wire.ts';
import { formatBodyParser } from '../body-reader.ts';
import type { VerificationCache } from '../cache.ts';
import type { ExternalChecks } from '../external-checks.ts';
import type { VerificationMetrics } from '../metrics.ts';
import { PoolSaturatedError, type VerifyPool } from '../pool.ts';
import { createVerificationRunner, type WireBody } from '../verification-run.ts';
import { badVerifyRequest } from '../verify-request.ts';
import { verifyBatchRoute } from './verify-batch.ts';

export interface VerifyRouteOptions {
  readonly verifier: Verifier;
  readonly pool: VerifyPool;
  readonly cache: VerificationCache;
  readonly metrics: VerificationMetrics;
  /** Revocation, attestation and anchor checks (I/O), run here after the worker's verdict. */
  readonly external: ExternalChecks;
  /** Requests per minute per client IP; 0 = unlimited. */
  readonly rateLimitPerMinute: number;
  /** POST /verify/batch limits (issue 14 item 3). */
  readonly batch: { readonly maxItems: number; readonly maxBytes: number; readonly groupSize: number };
}

const checkStatus = { type: 'string', enum: ['pass', 'fail', 'absent', 'skipped'] } as const;
const errorDetail = {
  type: 'object',
  properties: {
    code: { type: 'string' },
    check: { type: 'string' },
    message: { type: 'string' },
    retryable: { type: 'boolean' },
  },
} as const;

export const verifyRequestSchema = {
  type: 'object',
  required: ['signed_bundle'],
  // Documentation: verify-request.ts enforces it (P272: another member is a 400, not ignored).
  additionalProperties: false,
  properties: {
    signed_bundle: { type: 'object', description: 'Signed Bundle, V1 or V2' },
    public_key_b64: { type: 'string', description: 'Signer key, used when the V1 bundle carries none (D11)' },
    anchor_receipt: {
      type: 'object',
      description:
        "Optional anchor receipt (D19), checked against the bundle's recomputed hash and the operator's configured chain and log sources: check `anchor`",
    },
    jurisdiction_attestation: {
      type: 'object',
      description:
        "Optional jurisdiction attestation (D21): names the bundle's rpr_hash, signed by a trusted issuer key, not expired: check `attestation`",
    },
  },
} as const;

export const verifyResponseSchema = {
  type: 'object',
  required: ['verified', 'version', 'checks'],
  properties: {
    verified: { type: 'boolean' },
    version: { type: 'string' },
    resolved_tier: { type: 'string', enum: ['routine', 'standard', 'elevated', 'maximum'] },
    checks: { type: 'object', additionalProperties: checkStatus },
    errors: { type: 'array', items: { type: 'string' } },
    warnings: { type: 'array', items: { type: 'string' } },
    error_details: { type: 'array', items: errorDetail },
  },
  additionalProperties: true,
} as const;

export const badRequestSchema = {
  type: 'object',
  required: ['verified', 'errors', 'error_details'],
  properties: {
    verified: { type: 'boolean', enum: [false] },
    errors: { type: 'array', items: { type: 'string' } },
    error_details: { type: 'array', items: errorDetail },
  },
} as const;

export async function verifyRoutes(app: FastifyInstance, options: VerifyRouteOptions): Promise<void> {
  const { verifier, metrics } = options;
  const profile = verifier.profile;
  // Issue 15: the records plugin, when mounted, feeds its key directory from fresh verdicts.
  const runner = createVerificationRunner({
    ...options,
    keyDirectory: () => app.bundleVerified,
    retiredKeys: () => app.retiredSigningKeys,
    log: app.log,
  });

  // This scope keeps bodies as bytes: the worker parses JSON and CBOR off the event loop when nothing
  // here needs the value (cache off), and a malformed body gets the /verify-shaped 400 (D12). The body is
  // read into one buffer the worker receives by transfer, its socket pieces freed as they are copied (P134).
  app.removeAllContentTypeParsers();
  for (const format of ['json', 'cbor'] as const) {
    app.addContentTypeParser(
      `application/${format}`,
      formatBodyParser(format, (request) => request.routeOptions.bodyLimit),
    );
  }

  /**
   * The worker's bytes with the headers the wire-format hook would have set for the object (P68):
   * the same Content-Type, and `Vary: Accept` as the answer depends on it.
   */
  const sendWired = (reply: FastifyReply, answer: WiredAnswer) => {
    varyOnAccept(reply);
    reply.type(answer.format === 'cbor' ? CBOR_CONTENT_TYPE : 'application/json; charset=utf-8');
    const { bytes } = answer;
    return reply.send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  };

  const rejectRequest = (reply: FastifyReply, message: string) => {
    const body = badVerifyRequest(profile, message);
    metrics.errorsByCode.inc({ code: body.error_details[0]!.code });
    return reply.code(400).send(body);
  };

  app.post(
    '/verify',
    {
      config: options.rateLimitPerMinute > 0 ? rateLimitPerIp(options.rateLimitPerMinute) : {},
      // The body stays bytes until the handler decides where to parse it; the schema documents it.
      validatorCompiler: () => () => true,
      schema: {
        summary: 'Verify a Signed Bundle (V1 or V2)',
        description:
          'Runs the full checklist. A verdict, true or false, is HTTP 200. Bodies and replies may be JSON or CBOR (Content-Type / Accept application/cbor).',
        tags: ['verification'],
        consumes: ['application/json', 'application/cbor'],
        produces: ['application/json', 'application/cbor'],
        body: verifyRequestSchema,
        response: { 200: verifyResponseSchema, 400: badRequestSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const body = request.body as WireBody | undefined;
      if (!body) return rejectRequest(reply, 'Missing signed_bundle in body');
      let outcome: Awaited<ReturnType<typeof runner.run>>;
      try {
        outcome = await runner.run(body, prefersCbor(request.headers.accept) ? 'cbor' : 'json');
      } catch (error) {
        if (error instanceof PoolSaturatedError) {
          const busy = protocolError(
            'BACKPRESSURE',
            profile,
            'All verification workers are busy; retry shortly',
            {
              headers: { 'retry-after': '1' },
            },
          );
          metrics.errorsByCode.inc({ code: busy.code });
          throw busy;
        }
        throw error;
      }
      if (outcome.kind === 'bad_request') return rejectRequest(reply, outcome.message);
      if (outcome.cache !== undefined) reply.header('x-verification-cache', outcome.cache);
      if (outcome.kind === 'answer') return sendWired(reply, outcome.answer);
      return reply.send(outcome.response);
    },
  );

  await app.register(verifyBatchRoute, {
    runner,
    profile,
    metrics,
    maxItems: options.batch.maxItems,
    maxBytes: options.batch.maxBytes,
    // /verify's own limit (its parsers above read `routeOptions.bodyLimit`, the service's).
    maxItemBytes: app.initialConfig.bodyLimit ?? DEFAULT_BODY_LIMIT,
    window: options.pool.threads * 2,
    pool: options.pool,
    groupSize: options.batch.groupSize,
    rateLimitPerMinute: options.rateLimitPerMinute,
  });
}
