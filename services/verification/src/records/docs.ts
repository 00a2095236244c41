// OpenAPI route schemas of the /v2 records: summaries, descriptions, the published V2 record schemas.
// Implements docs/architecture.md §3 (route schemas produce /docs) and the issue's note that signatures are not verified.
import { getSchema } from '@proto/core';
import { errorResponses } from '@proto/service-kit';
import { ID_PATTERN_TEXT } from './ids.ts';
import type { RecordRoute } from './kinds.ts';
import { LIFECYCLE_MACHINE, transitionBodySchema } from './lifecycle-machine.ts';

const SCHEMA_PREFIX = 'https://schemas.signed-bundles.org/v2/';

export const NOT_VERIFIED_NOTE =
  "Under RECORDS_WRITE_POLICY=signed (default) the composite signature must verify under the kind's context " +
  "with a key bound to the record's subject (bad signature 400, unbound key 403), whose kid and subject are on " +
  'no revocation list (403 E300; 503 E701 while a list is unavailable), or the request carries the operator ' +
  'token (administrative write; the signature member may then be left out). Records are stored exactly as received.';

const BODY_NOTE =
  'The body is the record itself or the upstream wrapper form { "<record_kind>": { … } }. ' +
  'Numbers must be integers (dcp-jcs-v1, D15). Idempotent: re-posting the same record answers 200 with the ' +
  "same id; another record under a stored id is 409. The record's own time (`timestamp`; a testament's " +
  '`created_at` and `last_updated`) may lie at most 5 minutes ahead of the service clock (else 400 E002, P207).';

/**
 * The published V2 schemas a set of record kinds needs (the kinds and every schema they `$ref`), as
 * mutable copies for `addSchema`: the OpenAPI document then carries them as components.
 */
export function documentationSchemas(kinds: readonly string[]): object[] {
  const found = new Map<string, object>();
  const visit = (name: string): void => {
    if (found.has(name)) return;
    const schema = getSchema('v2', name);
    if (schema === undefined) return;
    found.set(name, structuredClone(schema) as object);
    for (const ref of refsOf(schema)) visit(ref);
  };
  for (const kind of kinds) visit(kind);
  return [...found.values()];
}

function refsOf(schema: unknown): string[] {
  const names: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
    } else if (typeof node === 'object' && node !== null) {
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string' && value.startsWith(SCHEMA_PREFIX)) {
          names.push(value.slice(SCHEMA_PREFIX.length).replace(/\.schema\.json(#.*)?$/, ''));
        } else {
          walk(value);
        }
      }
    }
  };
  walk(schema);
  return names;
}

const schemaRef = (kind: string) => ({ $ref: `${SCHEMA_PREFIX}${kind}.schema.json#` });

function idRule(route: RecordRoute): string {
  switch (route.id.type) {
    case 'field':
      return `Id: the record's \`${route.id.field}\`.`;
    case 'agent':
      return "Id: the record's `agent_id` (one per agent).";
    case 'vitality':
      return (
        "Id: the record's `agent_id`; GET answers the agent's latest report. Each report is stored under its " +
        '`report_hash` = sha256:<hex of SHA-256(jcs(report without composite_sig))>.'
      );
    case 'testament':
      return (
        "Id: the record's `agent_id`; every `testament_version` is kept and GET answers the latest " +
        '(`?version=n` for another). A version not above the latest stored one is 409.'
      );
    case 'content':
      return 'Id: content id sha256:<hex of SHA-256(jcs(record))> (this kind has no natural id). One signed payload is stored once: a copy of it signed otherwise is 409 naming the stored id (P514).';
  }
}

function lifecycleNote(route: RecordRoute): string {
  switch (route.kind) {
    case 'commissioning_certificate':
      return ' Sets the agent to `commissioned`; another certificate for a known agent is 409.';
    case 'decommissioning_record':
      return (
        ' Moves the agent to `decommissioned` (allowed from active or declining; else 409, unknown agent 404), ' +
        "recorded at the record's `timestamp`: dated before the agent's latest move, 409 (P238)."
      );
    case 'vitality_report':
      return (
        " `prev_report_hash` must equal the report_hash of the agent's latest report (GENESIS for the first), " +
        "else 409; unknown agent 404. A `timestamp` before that report's (the first: before the agent's commissioning " +
        "certificate's) is 409 (P239). The report's `state` is recorded, not applied (moves go through /v2/lifecycle/transition), so it is the agent's current state, or `decommissioned` in an active or declining agent's final report; else 409 (P379, P447)."
      );
    case 'arbitration_resolution':
      return ' One resolution per dispute, stored under its `dispute_id`: another for the same dispute is 409 (P240).';
    case 'dispute_record':
      return (
        ' A signed dispute names as respondent another agent known here (commissioned here, or whose bundle was ' +
        'verified here): its own initiator is 400 E002, an unknown agent 409 (P208).'
      );
    default:
      return '';
  }
}

/** How the write was authorised (issue 15): verified signature, operator token, or unchecked (`open`). */
const SIGNATURE_SCHEMA = {
  type: 'object',
  required: ['status'],
  properties: {
    status: { type: 'string', enum: ['verified', 'administrative', 'unchecked'] },
    kid: { type: 'string', description: 'The classical kid that signed it (verified)' },
    evidence: { type: 'string', description: 'Hash of the verified bundle that bound the key' },
    form: {
      type: 'string',
      enum: ['hybrid', 'classical_only'],
      description:
        "P446, verified writes: which halves the stored record's signature carries and were verified (both, or the classical one only)",
    },
    upgraded_from: {
      type: 'object',
      required: ['form', 'content_hash', 'upgraded_at'],
      description:
        'P446: the classical_only copy of this same record (same payload, same classical half) that was stored first and replaced by this hybrid form',
      properties: {
        form: { type: 'string', enum: ['classical_only'] },
        id: {
          type: 'string',
          description:
            'Where the replaced copy was stored; for a content-id kind its own content id, whose GET now answers this record (P514)',
        },
        content_hash: { type: 'string', description: "The replaced copy's content hash" },
        upgraded_at: { type: 'string', format: 'date-time' },
      },
    },
  },
} as const;

/** P297: the appointed arbitrators counted for a resolution and the quorum (RECORDS_PANEL_QUORUM). */
const PANEL_SCHEMA = {
  type: 'object',
  required: ['quorum', 'signed_by'],
  properties: {
    quorum: { type: 'integer', description: 'Distinct appointed arbitrators needed' },
    signed_by: { type: 'array', items: { type: 'string' }, description: 'Those counted, in panel order' },
  },
} as const;

/** Where a resolution of a dispute is (P295, P296): stored, or evicted by retention. */
const TRACE_SCHEMA = {
  type: 'object',
  required: ['id', 'stored_at'],
  properties: {
    id: { type: 'string' },
    stored_at: { type: 'string', format: 'date-time' },
    evicted_at: { type: 'string', format: 'date-time', description: 'Present when retention removed it' },
    panel: PANEL_SCHEMA,
    pending: {
      type: 'boolean',
      enum: [true],
      description:
        'P440: present when retention removed it while its panel was short of the quorum and nothing settled it since: it decided nothing',
    },
  },
} as const;

/** P295: a dispute's state, derived beside its signed filing (which is never rewritten). */
const DISPUTE_STATE_PROPERTIES = {
  state: {
    type: 'string',
    description:
      '`resolved` once a resolution of it is stored here (or was, before retention); else its filed status',
  },
  resolution: { ...TRACE_SCHEMA, description: 'Its resolution (GET /v2/dispute/arbitration/<dispute_id>)' },
  appeal_outcome: {
    ...TRACE_SCHEMA,
    description:
      "Its appeal's outcome, shown with its resolution (P296); with a quorum, decided once its panel.signed_by reaches it (P371)",
  },
} as const;

function answerSchema(route: RecordRoute) {
  return {
    type: 'object',
    required: ['id', 'kind', 'stored_at', 'record'],
    properties: {
      id: { type: 'string' },
      kind: { type: 'string', enum: [route.kind] },
      stored_at: { type: 'string', format: 'date-time', description: 'When the service first stored it' },
      record: { description: `The ${route.noun}, as received` },
      ...(route.id.type === 'vitality'
        ? { report_hash: { type: 'string', description: 'Chain hash of this report' } }
        : {}),
      ...(route.kind === 'commissioning_certificate' || route.kind === 'decommissioning_record'
        ? { state: { type: 'string', description: "The agent's lifecycle state" } }
        : {}),
      ...(route.kind === 'dispute_record' ? DISPUTE_STATE_PROPERTIES : {}),
      ...(route.kind === 'arbitration_resolution'
        ? {
            appeal_outcome: {
              description:
                "P296: on GET, the appeal's outcome stored beside this decision ({stored_at, record, signature, panel?}); " +
                "on POST, true when the resolution posted was stored as the appeal's outcome (then `panel` is the outcome's, P371)",
            },
            panel: {
              ...PANEL_SCHEMA,
              description:
                'P297: with RECORDS_PANEL_QUORUM over 1, who of the panel signed this resolution; the dispute is resolved once signed_by reaches quorum',
            },
            evicted_at: {
              type: 'string',
              format: 'date-time',
              description:
                "P565, GET: present when retention removed the decision and nothing settled it since: `record` is then null, `stored_at` and `signature` are the decision's, its appeal's outcome is shown beside it",
            },
            pending: {
              type: 'boolean',
              enum: [true],
              description:
                'P565, P440: present with evicted_at when the decision was short of its panel quorum when removed: it decided nothing',
            },
          }
        : {}),
      signature: SIGNATURE_SCHEMA,
      warnings: {
        type: 'array',
        items: { type: 'string' },
        description:
          'P519, P573: other stored ids of this kind (live or removed by retention) the id reads the same as (ASCII look-alikes: I, 1, l; 0, O; m, rn); a testament by its agent id (P571); on POST only when first stored (201)',
      },
    },
  } as const;
}

const rateLimitNote = (perMinute: number): string =>
  perMinute > 0
    ? ` Rate limit: ${perMinute} POSTs per minute per client IP, shared by every POST /v2 route (429, E700).`
    : '';

const tagOf = (route: RecordRoute): string => `records: ${route.area}`;

export function postRecordSchema(route: RecordRoute, rateLimitPerMinute: number) {
  const wrappers = route.wrapperKeys.map((key) => ({
    type: 'object',
    required: [key],
    additionalProperties: false,
    properties: { [key]: schemaRef(route.kind) },
  }));
  const answer = answerSchema(route);
  return {
    tags: [tagOf(route)],
    summary: `Store a ${route.noun} (${route.kind})`,
    description: `${BODY_NOTE} ${idRule(route)}${lifecycleNote(route)} ${NOT_VERIFIED_NOTE}${rateLimitNote(rateLimitPerMinute)}`,
    body: { anyOf: [schemaRef(route.kind), ...wrappers] },
    response: { 200: answer, 201: answer, ...errorResponses },
  };
}

export function getRecordSchema(route: RecordRoute, param: string) {
  return {
    tags: [tagOf(route)],
    summary:
      route.id.type === 'vitality'
        ? `Latest ${route.noun} of an agent`
        : route.id.type === 'testament'
          ? `Latest (or a given version of) an agent's ${route.noun}`
          : `Fetch a ${route.noun}`,
    description: `${idRule(route)} Unknown id: 404. ${NOT_VERIFIED_NOTE}`,
    params: {
      type: 'object',
      required: [param],
      properties: { [param]: { type: 'string', pattern: ID_PATTERN_TEXT } },
    },
    ...(route.id.type === 'testament'
      ? { querystring: { type: 'object', properties: { version: { type: 'integer', minimum: 1 } } } }
      : {}),
    response: { 200: answerSchema(route), ...errorResponses },
  };
}

export const transitionRouteSchema = (rateLimitPerMinute: number) => ({
  tags: ['records: lifecycle'],
  summary: 'Execute a lifecycle state transition',
  description:
    `Moves allowed (SPEC.md): ${Object.entries(LIFECYCLE_MACHINE)
      .flatMap(([from, tos]) => tos.map((to) => `${from} → ${to}`))
      .join(', ')}. ` +
    'Unknown agent 404; a move outside the machine, or a from_state that is not the current state, 409 with ' +
    "the allowed moves; a timestamp before the agent's latest move (or its commissioning here) 409 with " +
    'latest_move_at (P207). Atomic under concurrency: of racing moves exactly one wins. Under RECORDS_WRITE_POLICY=signed the body must carry a composite_sig over the rest (PROTO.v2.Lifecycle) by a key bound to the agent, or the operator token.' +
    rateLimitNote(rateLimitPerMinute),
  body: transitionBodySchema,
  response: {
    200: {
      type: 'object',
      required: ['agent_id', 'state', 'previous_state'],
      properties: {
        agent_id: { type: 'string' },
        state: { type: 'string', description: 'The new state' },
        previous_state: { type: 'string' },
        reason: { type: 'string' },
        timestamp: { type: 'string' },
        signature: SIGNATURE_SCHEMA,
      },
    },
    ...errorResponses,
  },
});
