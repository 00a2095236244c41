// Emergency revocation: register an agent's token (verified bundle or operator), then revoke with the secret.
// PROTOCOL §9.5 (register-emergency-token / emergency-revoke), schema emergency_revocation; issue 12 item 9.
import type { ProtocolProfile } from '@proto/core';
import { errorResponses, HttpError, httpError, protocolError, rateLimitKey } from '@proto/service-kit';
import type { EmergencyTokenRecord, RevocationRepository } from '@proto/store';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { reasonHash } from '../core.ts';
import {
  attestationHolds,
  EMERGENCY_REASON,
  MAX_REGISTERED_KIDS,
  secretProvesRegisteredToken,
  tokenOfSecret,
} from '../emergency.ts';
import { ABSENT_BODY, type BodyFormat, type RequestRefusal } from '../emergency-request.ts';
import { type EmergencyVerifyOutcome, VerifyThreadsBusyError } from '../emergency-threads.ts';
import { instrumentedVerifyThreads } from '../emergency-verify-metrics.ts';
import { assertAgentId, assertNotKeyIdForm, ID_PATTERN_SOURCE, isKeyIdForm } from '../ids.ts';
import type { ListPublisher } from '../publisher.ts';

export interface EmergencyRoutesOptions {
  readonly publisher: ListPublisher;
  readonly repository: RevocationRepository;
  readonly jurisdiction: string;
  readonly profile: ProtocolProfile;
  readonly guard: onRequestHookHandler;
  readonly clock: () => Date;
  /** EMERGENCY_REGISTRATION: who may register tokens without the operator token. */
  readonly registration: 'bundle' | 'attested' | 'operator';
  readonly maxPerIp: number;
  readonly maxPerAgent: number;
  readonly windowSeconds: number;
  readonly registrationsPerIp: number;
  /** EMERGENCY_VERIFY_WORKERS / EMERGENCY_VERIFY_QUEUE_MAX: the threads registrations are verified on (P539). */
  readonly verifyThreads: number;
  readonly verifyQueueMax: number;
  /** Each verification thread's heap cap in MB (EMERGENCY_VERIFY_THREAD_HEAP_MB, P613). */
  readonly verifyThreadHeapMb?: number;
  readonly onRevoked?: () => void;
}

const KID_PATTERN_SOURCE = '^[0-9a-f]{32}$';

/** The one refusal for a wrong secret and for an agent without a token (P305), written for the secret's holder. */
const SECRET_REFUSED =
  "No emergency token registered for this agent matches this secret. If you hold the secret of the agent's " +
  "passport token, register that token first (POST /emergency-tokens with the agent's verified bundle, or ask " +
  'the operator: PUT /emergency-tokens/:agent_id), then send this record again';

const registrationSchema = {
  type: 'object',
  required: ['agent_id', 'kids', 'source', 'registered_at', 'created'],
  properties: {
    agent_id: { type: 'string' },
    kids: { type: 'array', items: { type: 'string' }, description: 'Revoked with the agent' },
    source: { type: 'string', enum: ['bundle', 'operator'] },
    registered_at: { type: 'string' },
    created: { type: 'boolean' },
  },
} as const;

const revokedSchema = {
  type: 'object',
  required: ['agent_id', 'revoked_at', 'keys_revoked', 'list_number'],
  properties: {
    agent_id: { type: 'string' },
    revoked_at: { type: 'string' },
    keys_revoked: { type: 'array', items: { type: 'string' } },
    list_number: { type: 'integer', description: 'The list that names the agent and its keys' },
  },
} as const;

function registrationView(record: EmergencyTokenRecord, created: boolean) {
  return {
    agent_id: record.agent_id,
    kids: [...record.kids],
    source: record.source,
    registered_at: record.registered_at,
    created,
  };
}

type Limiter = (
  request: FastifyRequest,
) => Promise<{ isAllowed: boolean; isExceeded?: boolean; ttl?: number }>;

/** The body of POST /emergency-tokens as its parsers keep it: the bytes, for a verification thread (P576). */
interface RawBody {
  readonly format: BodyFormat;
  readonly bytes: Buffer;
}

interface EmergencyRevocationBody {
  type: 'emergency_revocation';
  agent_id: string;
  human_id: string;
  revocation_secret: string;
  timestamp: string;
  reason: typeof EMERGENCY_REASON;
}

export async function emergencyRoutes(app: FastifyInstance, options: EmergencyRoutesOptions): Promise<void> {
  const { profile, jurisdiction } = options;
  const threads = instrumentedVerifyThreads(app.serviceMetrics, {
    threads: options.verifyThreads,
    maxQueue: options.verifyQueueMax,
    profile: profile.name,
    ...(options.verifyThreadHeapMb === undefined ? {} : { heapMb: options.verifyThreadHeapMb }),
  });
  app.addHook('onClose', () => threads.close());

  // Counters of @fastify/rate-limit (Redis when REDIS_URL is set, so replicas share them), one key space each.
  const limiter = (max: number, windowMs: number, key: (request: FastifyRequest) => string): Limiter =>
    app.createRateLimit({ max, timeWindow: windowMs, keyGenerator: key }) as unknown as Limiter;
  const windowMs = options.windowSeconds * 1000;
  // The kit's client key, not request.ip as written: one client is one budget however its address is spelt
  // (`::ffff:192.0.2.1` is 192.0.2.1) and whichever address of its IPv6 /64 it sends from (P254, as row f).
  const perIp = limiter(options.maxPerIp, windowMs, (r) => `emergency-revoke:ip:${rateLimitKey(r)}`);
  const perAgent = limiter(options.maxPerAgent, windowMs, (r) => {
    const body = r.body as { agent_id?: unknown } | undefined;
    return `emergency-revoke:agent:${jurisdiction}:${String(body?.agent_id)}`;
  });
  const registrationsPerIp = limiter(
    options.registrationsPerIp,
    60_000,
    (r) => `emergency-register:ip:${rateLimitKey(r)}`,
  );
  const enforce = async (limit: Limiter, request: FastifyRequest, what: string): Promise<void> => {
    const result = await limit(request);
    if (result.isAllowed || result.isExceeded !== true) return;
    const retryAfter = Math.max(1, Math.ceil((result.ttl ?? 1000) / 1000));
    throw protocolError('RATE_LIMIT_EXCEEDED', profile, `Too many ${what}; retry in ${retryAfter} s`, {
      headers: { 'retry-after': String(retryAfter) },
    });
  };

  const registrationRoute = {
    onRequest: async (request: FastifyRequest) =>
      enforce(registrationsPerIp, request, 'registrations from this address'),
    // The thread checks the body against the schema (emergency-request.ts); the schema documents it.
    validatorCompiler: () => () => true,
    schema: {
      summary:
        "Register the emergency revocation token of a verified V2 bundle's passport (no operator token)",
      tags: ['emergency'],
      body: {
        type: 'object',
        required: ['signed_bundle'],
        additionalProperties: false,
        properties: { signed_bundle: { type: 'object' } },
      },
      response: { 200: registrationSchema, 201: registrationSchema, ...errorResponses },
    },
  };

  /** A body that is no registration: 400 with E001, as the kit's parsers and schema errors answer (P576). */
  const schemaRefusal = (refusal: RequestRefusal) =>
    protocolError('BUNDLE_SCHEMA_INVALID', profile, refusal.message, {
      statusCode: 400,
      ...(refusal.details.length === 0 ? {} : { details: refusal.details }),
    });

  /** The verification thread's outcome for a body, or the 503 / 500 its failure to give one is answered with. */
  const verifyOnThread = async (request: FastifyRequest, body: RawBody): Promise<EmergencyVerifyOutcome> => {
    try {
      return await threads.verify({ body: body.bytes, format: body.format, now: options.clock().getTime() });
    } catch (error) {
      if (error instanceof VerifyThreadsBusyError) {
        throw protocolError(
          'BACKPRESSURE',
          profile,
          'All emergency registration verifiers are busy; retry shortly',
          {
            headers: { 'retry-after': '1' },
          },
        );
      }
      // P578: the thread stopped under this task (out of memory, killed). Nothing was registered: the store is
      // written only after a thread's outcome; the pool starts another thread for the next registration.
      request.log.error({ err: error }, 'emergency registration verification thread stopped during the task');
      throw protocolError(
        'INTERNAL_ERROR',
        profile,
        'The verification of this registration stopped before it finished; nothing was registered; retry',
        { statusCode: 500 },
      );
    }
  };

  async function registerFromBundle(request: FastifyRequest, reply: FastifyReply) {
    if (options.registration === 'operator') {
      throw httpError('FORBIDDEN', 'Emergency tokens are registered by the operator only here');
    }
    const body = request.body as RawBody | undefined;
    // No body to hand a thread: the schema's refusal of an absent one, as the thread words the others.
    if (body === undefined) throw schemaRefusal(ABSENT_BODY);
    const outcome = await verifyOnThread(request, body);
    if (outcome.kind === 'bad_request') throw schemaRefusal(outcome.refusal);
    const found = outcome.registration;
    if (!found.ok) {
      if (found.reason === 'not_verified') {
        const first = outcome.firstError;
        throw new HttpError({
          statusCode: 422,
          code: first?.code ?? 'BUNDLE_NOT_VERIFIED',
          message: `The bundle does not verify${first ? `: ${first.message}` : ''}`,
          retryable: false,
        });
      }
      if (found.reason === 'too_many_kids') {
        throw httpError(
          'BAD_REQUEST',
          `The bundle was signed by ${found.kids} of its passport's keys; a registration takes at most ${MAX_REGISTERED_KIDS} (each is listed as revoked when the secret is used): ask the operator (PUT /emergency-tokens/:agent_id)`,
        );
      }
      if (found.reason === 'not_signed_by_principal') {
        throw httpError(
          'FORBIDDEN',
          "The bundle's signature is not its principal's (a key of the RPR's binding_keys): only the principal vouches for the passport's emergency token",
        );
      }
      throw httpError(
        'BAD_REQUEST',
        found.reason === 'no_token'
          ? "The bundle's passport carries no emergency_revocation_token"
          : 'The bundle names no agent',
      );
    }
    const registration = found.value;
    // Only this jurisdiction's agents: elsewhere this service has no say over them.
    if (registration.jurisdiction !== jurisdiction) {
      throw httpError(
        'FORBIDDEN',
        `The bundle's jurisdiction is ${String(registration.jurisdiction)}, not ${jurisdiction}`,
      );
    }
    assertAgentId(registration.agent_id);
    assertNotKeyIdForm(registration.agent_id);
    // Anyone can sign a bundle naming any agent id; an attestation of ours ties the id to this RPR.
    if (options.registration === 'attested') {
      const issued =
        registration.rpr_hash === undefined
          ? []
          : await options.repository.attestationTimes(
              jurisdiction,
              registration.agent_id,
              registration.rpr_hash,
            );
      if (issued.length === 0) {
        throw httpError(
          'FORBIDDEN',
          'This service registers emergency tokens only for agents it attested with this RPR (POST /attest)',
        );
      }
      // An attestation vouches for the agent until its expires_at, not for ever (P211): past it, the operator
      // attests again before the agent's token is taken.
      const now = options.clock().getTime();
      if (!issued.some((times) => attestationHolds(times, now))) {
        throw protocolError(
          'SIGNATURE_EXPIRED',
          profile,
          `The attestation of this agent with this RPR expired${issued[0]?.expires_at ? ` at ${issued[0].expires_at}` : ''}: ask the operator to attest it again (POST /attest)`,
        );
      }
    }
    const result = await options.repository.registerEmergencyToken(jurisdiction, {
      agent_id: registration.agent_id,
      token: registration.token,
      kids: registration.kids,
      human_id: registration.human_id,
      source: 'bundle',
    });
    if (result.status === 'used') throw httpError('CONFLICT', 'The agent was emergency-revoked already');
    // With `bundle`, anyone can sign a bundle naming any agent id: a 409 for another token (or a 200 for the
    // same one) against a 201 for none told whoever asked which agent ids have a token, and so whose stolen key
    // is worth a race with its owner, without changing anything (P424, P305's registration side). So every
    // registration that stores nothing is answered as the first one would have been, and the first token stands
    // (the operator can replace it). `attested` keeps the honest answers: its callers are agents this service
    // vouched for.
    if (options.registration === 'bundle' && result.status !== 'created') {
      if (result.status === 'conflict') {
        request.log.warn(
          { agent_id: registration.agent_id },
          'emergency token not registered: another token is registered for this agent (answered as registered)',
        );
      }
      // Built from the request alone: nothing of the stored record reaches the answer.
      const asFirst: EmergencyTokenRecord = {
        agent_id: registration.agent_id,
        token: registration.token,
        kids: [...new Set(registration.kids)],
        human_id: registration.human_id,
        source: 'bundle',
        registered_at: options.clock().toISOString(),
        used_at: null,
      };
      return reply.code(201).send(registrationView(asFirst, true));
    }
    if (result.status === 'conflict') {
      // First registration stands: a later passport cannot swap the secret (the operator can).
      throw httpError('CONFLICT', 'Another emergency token is registered for this agent');
    }
    request.log.info(
      { agent_id: registration.agent_id, kids: registration.kids.length, status: result.status },
      'emergency token registered from a verified bundle',
    );
    return reply
      .code(result.status === 'created' ? 201 : 200)
      .send(registrationView(result.record, result.status === 'created'));
  }

  await app.register(async (scope) => {
    // P576: this route keeps its body as bytes, moved to the verification thread that reads and checks them; the main
    // thread never parses or clones the (up to 1 MiB) bundle. Other routes keep the kit's parsers.
    scope.removeAllContentTypeParsers();
    for (const format of ['json', 'cbor'] as const) {
      scope.addContentTypeParser(`application/${format}`, { parseAs: 'buffer' }, (_request, bytes, done) =>
        // `parseAs: 'buffer'` hands a Buffer (typed as string | Buffer for every parseAs).
        done(null, { format, bytes: bytes as Buffer } satisfies RawBody),
      );
    }
    scope.post('/emergency-tokens', registrationRoute, registerFromBundle);
  });

  app.put<{ Params: { agent_id: string }; Body: { emergency_revocation_token: string; kids?: string[] } }>(
    '/emergency-tokens/:agent_id',
    {
      onRequest: options.guard,
      schema: {
        summary: "Register or replace (while unused) an agent's emergency token as the operator",
        tags: ['emergency'],
        params: {
          type: 'object',
          required: ['agent_id'],
          properties: { agent_id: { type: 'string', pattern: ID_PATTERN_SOURCE } },
        },
        body: {
          type: 'object',
          required: ['emergency_revocation_token'],
          additionalProperties: false,
          properties: {
            emergency_revocation_token: { type: 'string', pattern: '^sha256:[0-9a-f]{64}$' },
            kids: {
              type: 'array',
              maxItems: MAX_REGISTERED_KIDS,
              uniqueItems: true,
              items: { type: 'string', pattern: KID_PATTERN_SOURCE },
              description: "The agent's key ids, revoked with it",
            },
          },
        },
        response: { 200: registrationSchema, 201: registrationSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const agentId = request.params.agent_id;
      assertAgentId(agentId);
      const result = await options.repository.registerEmergencyToken(
        jurisdiction,
        {
          agent_id: agentId,
          token: request.body.emergency_revocation_token,
          kids: request.body.kids ?? [],
          human_id: null,
          source: 'operator',
        },
        { replace: true },
      );
      if (result.status === 'used') throw httpError('CONFLICT', 'The agent was emergency-revoked already');
      request.log.info(
        { agent_id: agentId, status: result.status },
        'emergency token registered by operator',
      );
      return reply
        .code(result.status === 'created' ? 201 : 200)
        .send(registrationView(result.record, result.status === 'created'));
    },
  );

  app.post<{ Body: EmergencyRevocationBody }>(
    '/emergency-revocations',
    {
      // Counted before the body is read: malformed guesses use up the allowance as well.
      onRequest: async (request) =>
        enforce(perIp, request, 'emergency revocation attempts from this address'),
      schema: {
        summary: 'Revoke an agent and its keys with the secret of its emergency token (no operator token)',
        tags: ['emergency'],
        body: {
          type: 'object',
          required: ['type', 'agent_id', 'human_id', 'revocation_secret', 'timestamp', 'reason'],
          additionalProperties: false,
          properties: {
            type: { type: 'string', const: 'emergency_revocation' },
            agent_id: { type: 'string', minLength: 6, maxLength: 256, pattern: ID_PATTERN_SOURCE },
            human_id: { type: 'string', minLength: 6, maxLength: 256 },
            revocation_secret: { type: 'string', pattern: '^[0-9a-f]{64}$' },
            timestamp: { type: 'string', format: 'date-time' },
            reason: { type: 'string', const: EMERGENCY_REASON },
          },
        },
        response: { 200: revokedSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const registered = await options.repository.getEmergencyToken(jurisdiction, body.agent_id);
      const holdsSecret = secretProvesRegisteredToken(body.revocation_secret, registered?.token);
      // The per-agent budget holds back attempts without the agent's secret only (P255). Before, it counted every
      // attempt, so whoever knew the agent's id (the thief of its key does) could spend it with wrong secrets, ten
      // a minute from anywhere, and the holder of the right secret got 429 for as long as the thief kept on.
      if (!holdsSecret) await enforce(perAgent, request, 'emergency revocation attempts for this agent');
      // No token and a wrong secret get one answer, reached the same way (the secret was hashed either way): a
      // 404 for no token told anyone which agent ids have one, whose owners are worth a stolen key (P305). The
      // message tells a holder of the right secret the one thing it can do about either case.
      if (registered === undefined || !holdsSecret) {
        request.log.warn(
          { agent_id: body.agent_id, registered: registered !== undefined },
          'emergency revocation refused: no registered token matches the secret',
        );
        throw httpError('FORBIDDEN', SECRET_REFUSED);
      }
      // A token registered from a bundle under a key id's form (before P201 refused such ids) would put that kid
      // in the list: another agent's key, named by whoever chose the id. Used only once the operator has
      // registered it again (PUT), i.e. vouched for it (P211; the service warns of these at start). Told only to
      // whoever proved the secret: before it, the answer is the wrong secret's, so nobody learns that such a token
      // exists for an id (P243).
      if (registered.source === 'bundle' && isKeyIdForm(registered.agent_id)) {
        request.log.warn(
          { agent_id: body.agent_id },
          'emergency revocation refused: token registered from a bundle under a key id',
        );
        throw httpError(
          'FORBIDDEN',
          'This token was registered from a bundle under an agent id of the key id form; the operator must register it again (PUT /emergency-tokens/:agent_id)',
        );
      }
      const revokedAt = options.clock().toISOString();
      const result = await options.publisher.emergencyRevoke({
        agent_id: body.agent_id,
        token: tokenOfSecret(body.revocation_secret),
        revoked_at: revokedAt,
        reason_hash: reasonHash(EMERGENCY_REASON),
      });
      if (result.status === 'used') throw httpError('CONFLICT', 'This revocation secret was used already');
      if (result.status === 'missing') {
        throw httpError('CONFLICT', 'The emergency token was replaced meanwhile; nothing was revoked');
      }
      options.onRevoked?.();
      request.log.info(
        { agent_id: body.agent_id, kids: result.record.kids.length, list_number: result.list.list_number },
        'agent emergency-revoked',
      );
      return reply.code(200).send({
        agent_id: body.agent_id,
        revoked_at: revokedAt,
        keys_revoked: [...result.record.kids],
        list_number: result.list.list_number,
      });
    },
  );
}
