// POST /verify: JSON or CBOR in and out, cache of time-independent analyses, verification in the
// worker pool. SPEC.md "POST /verify", DECISIONS D12 (response shape), PROTOCOL §8.2–8.3.
import { performance } from 'node:perf_hooks';
import type { BundleAnalysis, Verifier, VerifyResponse } from '@proto/core';
import { decodeCbor, errorResponses, protocolError, rateLimitPerIp } from '@proto/service-kit';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { analysisRequest, evidenceOf, subjectOf } from '../bundle-subject.ts';
import { type VerificationCache, verificationCacheKey } from '../cache.ts';
import type { ExternalChecks } from '../external-checks.ts';
import { tierLabel, type VerificationMetrics } from '../metrics.ts';
import { PoolSaturatedError, type VerifyPool } from '../pool.ts';
import { badVerifyRequest, checkVerifyRequest, parseJsonBody } from '../verify-request.ts';
import type { AnalysisFacts, VerifyTask } from '../worker.ts';

export interface VerifyRouteOptions {
  readonly verifier: Verifier;
  readonly pool: VerifyPool;
  readonly cache: VerificationCache;
  readonly metrics: VerificationMetrics;
  /** Revocation, attestation and anchor checks (I/O), run here after the worker's verdict. */
  readonly external: ExternalChecks;
  /** Requests per minute per client IP; 0 = unlimited. */
  readonly rateLimitPerMinute: number;
}

/** The body as it arrived: parsing waits until we know whether the main thread needs the value. */
interface WireBody {
  readonly format: 'json' | 'cbor';
  readonly bytes: Buffer;
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

const badRequestSchema = {
  type: 'object',
  required: ['verified', 'errors', 'error_details'],
  properties: {
    verified: { type: 'boolean', enum: [false] },
    errors: { type: 'array', items: { type: 'string' } },
    error_details: { type: 'array', items: errorDetail },
  },
} as const;

export async function verifyRoutes(app: FastifyInstance, options: VerifyRouteOptions): Promise<void> {
  const { verifier, pool, cache, metrics, external } = options;
  const profile = verifier.profile;
  const settingsText = JSON.stringify(verifier.settings);

  // This scope keeps bodies as bytes: the worker parses JSON off the event loop when nothing here
  // needs the value (cache off), and a malformed body gets the /verify-shaped 400 (D12).
  app.removeAllContentTypeParsers();
  for (const format of ['json', 'cbor'] as const) {
    app.addContentTypeParser(`application/${format}`, { parseAs: 'buffer' }, (_req, bytes: Buffer, done) => {
      done(null, { format, bytes } satisfies WireBody);
    });
  }

  const rejectRequest = (reply: FastifyReply, message: string) => {
    const body = badVerifyRequest(profile, message);
    metrics.errorsByCode.inc({ code: body.error_details[0]!.code });
    return reply.code(400).send(body);
  };

  const record = (response: VerifyResponse, facts: AnalysisFacts, startedAt: number, fresh: boolean) => {
    const tier = tierLabel(response.resolved_tier ?? facts.resolvedTier);
    metrics.latency.observe({ tier }, (performance.now() - startedAt) / 1000);
    metrics.requestsByTier.inc({ tier });
    metrics.verified.inc({
      result: response.verified ? 'verified' : 'rejected',
      version: response.version,
      tier,
    });
    for (const detail of response.error_details ?? []) metrics.errorsByCode.inc({ code: detail.code });
    if (fresh && facts.checkpointsVerified > 0) metrics.checkpointsVerified.inc(facts.checkpointsVerified);
  };

  const factsOf = (analysis: BundleAnalysis): AnalysisFacts => ({
    version: analysis.version,
    ...(analysis.resolvedTier === undefined ? {} : { resolvedTier: analysis.resolvedTier }),
    checkpointsVerified: analysis.checkpointsVerified,
  });

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
      const startedAt = performance.now();
      const body = request.body as WireBody | undefined;
      if (!body) return rejectRequest(reply, 'Missing signed_bundle in body');

      let value: unknown;
      if (body.format === 'cbor') {
        try {
          value = decodeCbor(body.bytes);
        } catch (error) {
          return rejectRequest(reply, `Request body is not valid CBOR: ${(error as Error).message}`);
        }
      }

      let cacheKey: string | undefined;
      if (cache.enabled) {
        if (value === undefined) {
          const parsed = parseJsonBody(body.bytes);
          if (!parsed.ok) return rejectRequest(reply, parsed.message);
          value = parsed.value;
        }
        const read = checkVerifyRequest(value);
        if (!read.ok) return rejectRequest(reply, read.message);
        // The analysis ignores the anchor receipt and the attestation, so the key does too.
        cacheKey = verificationCacheKey(settingsText, analysisRequest(read.request));
        const hit = cacheKey === undefined ? undefined : cache.get(cacheKey);
        if (hit) {
          metrics.cacheHits.inc();
          // Time-dependent checks (key expiry and age, RPR and session expiry) run on every hit, and so
          // do revocation, attestation and anchor: only the analysis is cached, never a verdict (D20).
          const finalized = verifier.finalize(hit, new Date());
          const response = await external.apply(finalized, subjectOf(hit), evidenceOf(read.request));
          record(response, factsOf(hit), startedAt, false);
          return reply.header('x-verification-cache', 'hit').send(response);
        }
        metrics.cacheMisses.inc();
      }

      const task: VerifyTask =
        value === undefined || body.format === 'json'
          ? { json: body.bytes, wantAnalysis: cacheKey !== undefined, now: Date.now() }
          : { request: value, wantAnalysis: cacheKey !== undefined, now: Date.now() };
      let result: Awaited<ReturnType<VerifyPool['run']>>;
      try {
        result = await pool.run(task);
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
      if (result.kind === 'bad_request') return rejectRequest(reply, result.message);
      if (cacheKey !== undefined && result.analysis) cache.set(cacheKey, result.analysis);
      // I/O checks after the CPU work; a revocation seen here evicts the entry just stored (D20).
      const response = await external.apply(result.response, result.subject, result.evidence);
      record(response, result.facts, startedAt, true);
      // Issue 15: the key directory learns the bundle's keys, after the answer (records/key-binding-feeder.ts).
      request.server.bundleVerified?.({
        ...result.subject,
        verified: response.verified,
        body: value ?? body.bytes,
      });
      if (cache.enabled) reply.header('x-verification-cache', 'miss');
      return reply.send(response);
    },
  );
}
