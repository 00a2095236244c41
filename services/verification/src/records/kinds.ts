// The /v2 route table: each route's record kind (its V2 schema), accepted wrapper keys and id rule.
// Implements SPEC.md Lifecycle…Delegation endpoint tables, PROTOCOL §9.2 (route → kind mapping), D14 (ids).

export type RecordArea = 'lifecycle' | 'succession' | 'dispute' | 'rights' | 'delegation' | 'awareness';

/**
 * How a record's id is found (D14):
 * - `field`: the record's natural id, the value of one of its members;
 * - `content`: kinds without a natural id get `sha256:<hex of SHA-256(jcs(record))>`;
 * - `agent`: one record per agent (`agent_id`): commissioning and decommissioning;
 * - `vitality`: GET by `agent_id` answers the latest report; each report is stored under its chain hash;
 * - `testament`: GET by `agent_id` answers the latest version; each version is kept (`?version=`).
 */
export type IdRule =
  | { readonly type: 'field'; readonly field: string }
  | { readonly type: 'content' }
  | { readonly type: 'agent' }
  | { readonly type: 'vitality' }
  | { readonly type: 'testament' };

export interface RecordRoute {
  readonly area: RecordArea;
  /** POST path; the GET path is `<path>/:id` (`:agent_id` for vitality). */
  readonly path: string;
  /** Record kind = V2 schema name (PROTOCOL §9.2, §10.2). */
  readonly kind: string;
  /** Keys of the upstream wrapper form `{ "<key>": {…} }` (D14). */
  readonly wrapperKeys: readonly string[];
  readonly id: IdRule;
  /** What the record is, for the OpenAPI summary. */
  readonly noun: string;
}

const route = (
  area: RecordArea,
  path: string,
  kind: string,
  id: IdRule,
  noun: string,
  extraWrapperKeys: readonly string[] = [],
): RecordRoute => ({ area, path, kind, id, noun, wrapperKeys: [kind, ...extraWrapperKeys] });

const field = (name: string): IdRule => ({ type: 'field', field: name });
const CONTENT: IdRule = { type: 'content' };

/** The 18 record routes (36 of SPEC.md's 37 endpoints; the 37th is POST /v2/lifecycle/transition). */
export const RECORD_ROUTES: readonly RecordRoute[] = [
  route(
    'lifecycle',
    '/v2/lifecycle/commission',
    'commissioning_certificate',
    { type: 'agent' },
    'commissioning certificate',
  ),
  route('lifecycle', '/v2/lifecycle/vitality', 'vitality_report', { type: 'vitality' }, 'vitality report'),
  route(
    'lifecycle',
    '/v2/lifecycle/decommission',
    'decommissioning_record',
    { type: 'agent' },
    'decommissioning record',
  ),
  route(
    'succession',
    '/v2/succession/testament',
    'digital_testament',
    { type: 'testament' },
    'digital testament',
  ),
  route('succession', '/v2/succession/record', 'succession_record', CONTENT, 'succession record'),
  route(
    'succession',
    '/v2/succession/memory-transfer',
    'memory_transfer_manifest',
    CONTENT,
    'memory transfer manifest',
  ),
  route('dispute', '/v2/dispute/record', 'dispute_record', field('dispute_id'), 'dispute record'),
  // P240: one resolution per dispute, stored under the dispute's id.
  route(
    'dispute',
    '/v2/dispute/arbitration',
    'arbitration_resolution',
    field('dispute_id'),
    'arbitration resolution',
  ),
  route(
    'dispute',
    '/v2/dispute/jurisprudence',
    'jurisprudence_bundle',
    field('jurisprudence_id'),
    'jurisprudence bundle',
  ),
  route('dispute', '/v2/dispute/objection', 'objection_record', field('objection_id'), 'objection record'),
  route(
    'rights',
    '/v2/rights/declaration',
    'rights_declaration',
    field('declaration_id'),
    'rights declaration',
  ),
  route('rights', '/v2/rights/obligation', 'obligation_record', field('obligation_id'), 'obligation record'),
  // Upstream's gateway wraps this kind under `violation_report` (PROTOCOL §9.2).
  route(
    'rights',
    '/v2/rights/violation',
    'rights_violation_report',
    field('violation_id'),
    'rights violation report',
    ['violation_report'],
  ),
  route(
    'delegation',
    '/v2/delegation/mandate',
    'delegation_mandate',
    field('mandate_id'),
    'delegation mandate',
  ),
  route(
    'delegation',
    '/v2/delegation/advisory',
    'advisory_declaration',
    field('declaration_id'),
    'advisory declaration',
  ),
  route('delegation', '/v2/delegation/mirror', 'principal_mirror', field('mirror_id'), 'principal mirror'),
  route(
    'delegation',
    '/v2/delegation/interaction',
    'interaction_record',
    field('interaction_id'),
    'interaction record',
  ),
  route(
    'awareness',
    '/v2/awareness/threshold',
    'awareness_threshold',
    field('threshold_id'),
    'awareness threshold',
  ),
];

export const TRANSITION_PATH = '/v2/lifecycle/transition';

/** The route of a record kind (every kind in RECORD_ROUTES has exactly one). */
export function routeOfKind(kind: string): RecordRoute {
  const found = RECORD_ROUTES.find((r) => r.kind === kind);
  if (found === undefined) throw new Error(`no /v2 route for record kind ${kind}`);
  return found;
}
