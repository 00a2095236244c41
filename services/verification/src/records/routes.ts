// The Fastify plugin of the 37 /v2 record endpoints (`recordRoutes`): 18 POST + 18 GET + the transition.
// Implements SPEC.md Lifecycle…Delegation endpoint tables with D14–D17; writes authorised per issue 15 (write-authorization.ts).
import { DEFAULT_PROFILE, type ProtocolProfile, recordSubjects } from '@proto/core';
import { RecordIdRetiredError, type Store } from '@proto/store';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { isJsonObject, readRecordBody } from './body.ts';
import {
  DEFAULT_DISPUTE_HOLD_MAX_AGE_SECONDS,
  DEFAULT_DISPUTE_HOLDS_PER_FILER,
  releaseSettledDispute,
  writeHoldingRespondent,
} from './dispute-holds.ts';
import { documentationSchemas, getRecordSchema, postRecordSchema, transitionRouteSchema } from './docs.ts';
import { conflict, invalidId } from './errors.ts';
import {
  getCommission,
  getDecommission,
  getLatestVitality,
  getSimpleRecord,
  getTestament,
  type Outcome,
  type PostContext,
  postCommission,
  postDecommission,
  postSimpleRecord,
  postTestament,
  postTransition,
  postVitality,
  type RecordAnswer,
} from './handlers.ts';
import { isValidId } from './ids.ts';
import { RECORD_ROUTES, type RecordRoute, TRANSITION_PATH } from './kinds.ts';
import { readTransitionRequest } from './lifecycle-machine.ts';
import { lookAlikeWarnings } from './look-alike-ids.ts';
import { DEFAULT_RATE_LIMIT_PER_MINUTE, v2PostRateLimit } from './rate-limit.ts';
import { postUpgrading, withForm } from './signature-upgrade.ts';
import type { WriteAuthorizer, WriteAuthorship } from './write-authorization.ts';

export interface RecordRoutesOptions {
  /** Where the records and lifecycle states live (opened by the caller, who also closes it). */
  readonly store: Store;
  /** Error-code prefix; default the app's profile (PROTOCOL_PROFILE), else `proto`. */
  readonly profile?: ProtocolProfile;
  /** POSTs per minute per client IP, one budget for every POST /v2 route (D17); 0 turns it off. */
  readonly rateLimitPerMinute?: number;
  /** Who may write (RECORDS_WRITE_POLICY); without one every write is accepted unchecked (`open`). */
  readonly authorizer?: WriteAuthorizer;
  /** RECORDS_PANEL_QUORUM (P297), checked against the appointment at boot; default 1. */
  readonly panelQuorum?: number;
  /** RECORDS_DISPUTE_HOLDS_PER_FILER (P566): unsettled disputes one filer may hold its respondents' keys for. */
  readonly disputeHoldsPerFiler?: number;
  /** RECORDS_DISPUTE_HOLD_MAX_AGE_SECONDS (P606): how long an unsettled dispute holds its respondent; 0: for good. */
  readonly disputeHoldMaxAgeSeconds?: number;
}

const UNCHECKED = { status: 'unchecked' } as const;

type PostHandler = (
  store: Store,
  record: Record<string, unknown>,
  context: PostContext,
) => Promise<Outcome<RecordAnswer>>;

function postHandlerOf(route: RecordRoute): PostHandler {
  switch (route.kind) {
    case 'commissioning_certificate':
      return postCommission;
    case 'decommissioning_record':
      return postDecommission;
    case 'vitality_report':
      return postVitality;
    case 'digital_testament':
      return postTestament;
    default:
      return (store, record, context) => postSimpleRecord(store, route, record, context);
  }
}

type GetHandler = (store: Store, id: string, request: FastifyRequest) => Promise<RecordAnswer>;

function getHandlerOf(route: RecordRoute, panelQuorum: number): GetHandler {
  switch (route.kind) {
    case 'commissioning_certificate':
      return getCommission;
    case 'decommissioning_record':
      return getDecommission;
    case 'vitality_report':
      return getLatestVitality;
    case 'digital_testament':
      return (store, id, request) => getTestament(store, id, testamentVersionQuery(request));
    default:
      return (store, id) => getSimpleRecord(store, route, id, panelQuorum);
  }
}

/** GET answers carry how the record's write was authorised (issue 15); `unchecked` when nothing was kept. */
async function withAuthorship(store: Store, kind: string, answer: RecordAnswer) {
  const found =
    answer.content_hash === undefined
      ? undefined
      : await store.records.getAuthorship(kind, answer.content_hash);
  return { ...answer, signature: await withForm(store, kind, answer, found ?? UNCHECKED) };
}

/**
 * P185: the ids a record names keep their key bindings from now on, however the write was authorised (an operator
 * write proves no key). Held before the record is stored, so no prune can fall between the record and the hold.
 */
function holdSubjects(store: Store, kind: string, record: Readonly<Record<string, unknown>>): Promise<void> {
  // P537's hold of a dispute's respondent is the dispute's own, released once it is settled (P566, dispute-holds.ts).
  return store.keys.holdSubjects(recordSubjects(kind, record));
}

/** An answer's `warnings` member: absent when there is none. */
const warningsOf = (warnings: readonly string[]) => (warnings.length > 0 ? { warnings } : {});

/** A testament version in `?version=`: a positive integer of at most nine digits. */
const VERSION_PATTERN = /^[1-9]\d{0,8}$/;

function testamentVersionQuery(request: FastifyRequest): number | undefined {
  const raw = (request.query as Record<string, unknown> | undefined)?.['version'];
  if (raw === undefined) return undefined;
  // A repeated `?version=` never gets here: the kit refuses it for every route (P595).
  if (typeof raw !== 'string' || !VERSION_PATTERN.test(raw))
    throw invalidId('version', String(raw), VERSION_PATTERN.source);
  return Number(raw);
}

function pathId(request: FastifyRequest, param: string, name = param): string {
  const value = (request.params as Record<string, unknown>)[param];
  if (!isValidId(value)) throw invalidId(`${name} in path`, value);
  return value;
}

export async function recordRoutes(app: FastifyInstance, options: RecordRoutesOptions): Promise<void> {
  const { store } = options;
  const profile = options.profile ?? app.protocolProfile ?? DEFAULT_PROFILE;
  const perMinute = options.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE;
  const { authorizer } = options;
  const panelQuorum = options.panelQuorum ?? 1;
  const disputeHolds = {
    limit: options.disputeHoldsPerFiler ?? DEFAULT_DISPUTE_HOLDS_PER_FILER,
    maxAgeMs: (options.disputeHoldMaxAgeSeconds ?? DEFAULT_DISPUTE_HOLD_MAX_AGE_SECONDS) * 1000,
  };

  // Route schemas document; validation is ours (validateSchema: readable issues, E002, D14 id codes).
  app.setValidatorCompiler(() => () => true);
  for (const schema of documentationSchemas(RECORD_ROUTES.map((r) => r.kind))) app.addSchema(schema);

  const limit = v2PostRateLimit(app, perMinute);
  const onRequest: onRequestHookHandler[] = limit === undefined ? [] : [limit];

  for (const route of RECORD_ROUTES) {
    const post = postHandlerOf(route);
    app.post(
      route.path,
      { schema: postRecordSchema(route, perMinute), onRequest },
      async (request: FastifyRequest, reply: FastifyReply) => {
        // The token is checked first: only an administrative write may leave out the signature (P44).
        const administrative = authorizer?.administrative(request) === true;
        const record = readRecordBody(profile, route, request.body, { administrative });
        const authorship = (await authorizer?.authorize(request, route.kind, record)) ?? UNCHECKED;
        // P297: the panel members the key speaks for are counted beside the resolution, never shown or stored here.
        const {
          panelMembers: _members,
          pqKid: _pqKid,
          ...signature
        } = authorship as WriteAuthorship & {
          panelMembers?: unknown;
          pqKid?: unknown;
        };
        await holdSubjects(store, route.kind, record);
        // P446: the owner's hybrid record takes the place of its stripped copy, then is stored as a re-post would be;
        // P506: in one transaction with the handler's write. P607: a filing's hold of its respondent in it too.
        const { outcome, upgrades } = await writeHoldingRespondent(
          store,
          route.kind,
          record,
          { ...disputeHolds, administrative },
          (holding) =>
            postUpgrading(holding, route, record, authorship, (on) =>
              post(on, record, { signature: authorship, panelQuorum, profile }),
            ),
        )
          .catch((error: unknown) => {
            if (!(error instanceof RecordIdRetiredError)) throw error;
            throw conflict(
              `Id ${error.tombstone.id} held a different ${route.noun}, removed by retention on ${error.tombstone.evicted_at}; an id never changes meaning`,
              { id: error.tombstone.id, content_hash: error.tombstone.content_hash },
            );
          })
          // P566: whatever the write did, a settled dispute's holds go (a re-posted filing of one placed its hold again).
          .finally(() =>
            releaseSettledDispute(store, route.kind, record, panelQuorum).catch((error: unknown) =>
              request.log.warn({ err: error }, 'dispute holds: release failed'),
            ),
          );
        for (const upgrade of upgrades) {
          request.log.info(
            { p446: upgrade },
            'record signature upgraded: a classical_only copy replaced by the same record signed with both halves',
          );
        }
        const hash = outcome.body.content_hash;
        if (hash !== undefined && signature.status !== 'unchecked') {
          await store.records.putAuthorship(route.kind, hash, signature);
        }
        // An upgrade answers as the first write of the owner's record (201), not as a re-post of it.
        const statusCode = upgrades.length > 0 ? 201 : outcome.statusCode;
        const shown = await withForm(store, route.kind, outcome.body, signature);
        // P519: a new id that reads as a stored one of its kind is named (a re-post was named when first stored);
        // P570: asked of the store once the write has committed. P561's warnings come from the handler.
        const warnings = [
          ...(outcome.body.warnings ?? []),
          ...(outcome.statusCode === 201
            ? await lookAlikeWarnings(store.records, route, outcome.body.id)
            : []),
        ];
        return reply.code(statusCode).send({ ...outcome.body, signature: shown, ...warningsOf(warnings) });
      },
    );

    const param = route.id.type === 'vitality' ? 'agent_id' : 'id';
    const get = getHandlerOf(route, panelQuorum);
    // P573: a GET names the stored ids its record's id reads the same as, as the write's answer did.
    const answerGet = async (request: FastifyRequest, id: string) => {
      const answer = await withAuthorship(store, route.kind, await get(store, id, request));
      return { ...answer, ...warningsOf(await lookAlikeWarnings(store.records, route, answer.id)) };
    };
    app.get(`${route.path}/:${param}`, { schema: getRecordSchema(route, param) }, async (request) =>
      answerGet(request, pathId(request, param)),
    );
    // The router refuses a path parameter over 100 characters (414, before any hook runs) but ids may
    // have 256: the router falls back to this undocumented twin for longer ones (and for ids with '/').
    app.get(`${route.path}/*`, { schema: { hide: true } }, async (request) =>
      answerGet(request, pathId(request, '*', param)),
    );
  }

  app.post(TRANSITION_PATH, { schema: transitionRouteSchema(perMinute), onRequest }, async (request) => {
    // A signed transition statement is the body itself with a composite_sig over the rest (PROTO.v2.Lifecycle).
    const { composite_sig: statementSig, ...statement } = isJsonObject(request.body) ? request.body : {};
    const transition = readTransitionRequest(profile, isJsonObject(request.body) ? statement : request.body);
    const signature =
      (await authorizer?.authorize(request, 'lifecycle_transition', {
        ...statement,
        ...(statementSig === undefined ? {} : { composite_sig: statementSig }),
      })) ?? UNCHECKED;
    await holdSubjects(store, 'lifecycle_transition', { agent_id: transition.agent_id });
    return { ...(await postTransition(store, transition)), signature };
  });
}
