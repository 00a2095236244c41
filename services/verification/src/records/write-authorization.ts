// Who may write a /v2 record: a valid composite signature by a key bound to the record's subject, or the
// operator token (administrative write). Issue 15 items 2–3 (RECORDS_WRITE_POLICY), D22 (operator token).
import {
  type CryptoBackend,
  type ProtocolProfile,
  recordSignatureRule,
  recordSubjects,
  verifyRecordSignature,
} from '@proto/core';
import { HttpError, httpError, protocolError, tokenMatches } from '@proto/service-kit';
import type { FastifyRequest } from 'fastify';
import { actsForAgent, agentActedFor, COMMISSIONING, type PrincipalLookup } from './agent-principal.ts';
import { ARBITRATION, type DisputePartiesLookup, judgePanel } from './arbitration-panel.ts';
import { type AgentKnownLookup, DISPUTE, judgeRespondent } from './dispute-respondent.ts';
import { badBody, conflict } from './errors.ts';
import { refuseUnprovenConsent, SUCCESSION } from './human-consent.ts';
import type { RevocationGate } from './revocation-gate.ts';
import { boundSigningKeys } from './signing-keys.ts';

export const WRITE_POLICIES = ['signed', 'open'] as const;

export type WritePolicy = (typeof WRITE_POLICIES)[number];

/** A key as the key directory binds it: its public key and the ids (agents, humans) it may sign for. */
export interface KeyBinding {
  readonly kid: string;
  readonly alg: string;
  readonly publicKey: Uint8Array;
  readonly subjects: readonly string[];
  /** Where the binding came from (the verified bundle's hash). */
  readonly evidence: string;
}

/** Resolves a kid to its binding; undefined when the kid is unknown, expired or revoked. */
export interface KeyBindingLookup {
  lookup(kid: string): Promise<KeyBinding | undefined> | KeyBinding | undefined;
  /**
   * Records that `kid` authorised a write for `subjects`, so the directory keeps that binding (P174); false when
   * it is no longer bound to any of them (pruned or retired since the lookup), and the write is then refused.
   */
  markAuthorised?(kid: string, subjects: readonly string[]): Promise<boolean>;
  /** P560: the agent's current principal by the key directory (its newest RPR's human); undefined when unknown. */
  currentPrincipal?(agentId: string): Promise<string | undefined>;
}

/** What a stored record's writer proved (returned with the record). */
export type WriteAuthorship =
  | {
      readonly status: 'verified';
      readonly kid: string;
      readonly evidence: string;
      /**
       * P446: the ML-DSA kid whose half verified beside the classical one, when the signature carries both. Not shown
       * nor stored: it lets the owner's hybrid record take the place of its stripped copy.
       */
      readonly pqKid?: string;
      /**
       * P297, resolutions only: the panel members (`arbitrator_ids`, in that order, once each) the signing key speaks
       * for. Not shown nor stored: the panel count is kept beside the resolution.
       */
      readonly panelMembers?: readonly string[];
    }
  | { readonly status: 'administrative' }
  | { readonly status: 'unchecked' };

export interface WriteAuthorizer {
  readonly policy: WritePolicy;
  /** Whether the request carries the operator token (P44); a wrong token is 401, never ignored. */
  administrative(request: FastifyRequest): boolean;
  authorize(
    request: FastifyRequest,
    kind: string,
    record: Readonly<Record<string, unknown>>,
  ): Promise<WriteAuthorship>;
}

const HOW_KEYS_ARE_BOUND =
  'A key becomes bound when a V2 bundle carrying it (passport keys for its agent_id, RPR binding keys for ' +
  'its human_id and agent) verifies at POST /verify; sign the record with such a key, or use the operator token ' +
  'for an administrative write.';

export function createWriteAuthorizer(options: {
  readonly policy: WritePolicy;
  readonly profile: ProtocolProfile;
  readonly backend: CryptoBackend;
  readonly keys: KeyBindingLookup;
  readonly operatorTokens: readonly string[];
  /** The revocation lists /verify uses; undefined when no source is configured (P43). */
  readonly revocation?: RevocationGate | undefined;
  /**
   * An agent's principal by its stored commissioning certificate (P199). Without it, only keys bound to the agent
   * itself sign the records about it that also name a human.
   */
  readonly principalOf?: PrincipalLookup | undefined;
  /**
   * The parties of a dispute stored here (P203). Without it, a signed arbitration resolution is refused: whether its
   * signer is a party to the dispute, or the dispute exists, cannot be told.
   */
  readonly disputePartiesOf?: DisputePartiesLookup | undefined;
  /**
   * The arbitrators the operator appointed (RECORDS_ARBITRATORS, P241). With it, a signed resolution's panel names
   * only these; without it, any non-party may sit (P203).
   */
  readonly appointedArbitrators?: ReadonlySet<string> | undefined;
  /** RECORDS_PANEL_QUORUM (P297): a signed resolution's panel names at least this many distinct arbitrators. */
  readonly panelQuorum?: number | undefined;
  /**
   * P377: a signature must carry its ML-DSA half (the operator's VERIFIER_MODE is hybrid_required or pq_only). The
   * `binding` member is covered by no signature (PROTOCOL §3), so a hybrid signature stripped of its PQ half and marked
   * `classical_only` still verifies; only this policy refuses it. Default false, as `hybrid_preferred` accepts it.
   */
  readonly requirePq?: boolean | undefined;
  /**
   * Whether the agent has live passport keys bound here (P205). With it, such an agent's commissioning certificate
   * is signed by keys bound to the agent itself; without it, commissioning stays first-come.
   */
  readonly agentHasLiveKeys?: ((agentId: string) => Promise<boolean>) | undefined;
  /**
   * Whether an agent is known here (P208): commissioned, or with live passport keys bound. Without it, a signed
   * dispute record is refused: whether its respondent is an agent this service can tell cannot be judged.
   */
  readonly agentKnown?: AgentKnownLookup | undefined;
}): WriteAuthorizer {
  const { policy, profile, backend, keys, operatorTokens, revocation, principalOf, disputePartiesOf } =
    options;

  const bearer = (request: FastifyRequest): string | undefined => {
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer[ ]+(\S+)\s*$/i.exec(header) : null;
    return match?.[1];
  };

  const administrative = (request: FastifyRequest): boolean => {
    const token = bearer(request);
    if (token === undefined) return false;
    // A presented token is checked under both policies: a wrong one is never silently ignored.
    if (operatorTokens.length === 0 || !tokenMatches(token, operatorTokens)) {
      throw httpError('UNAUTHORIZED', 'The operator bearer token is not valid', {
        headers: { 'www-authenticate': 'Bearer realm="operator", error="invalid_token"' },
      });
    }
    return true;
  };

  return {
    policy,
    administrative,
    async authorize(request, kind, record) {
      if (administrative(request)) return { status: 'administrative' };
      if (policy === 'open') return { status: 'unchecked' };

      const rule = recordSignatureRule(kind);
      const member = rule?.signatureMember ?? 'composite_sig';
      if (record[member] === undefined) {
        throw protocolError(
          'SIGNATURE_MISSING',
          profile,
          `This ${kind} carries no ${member}: RECORDS_WRITE_POLICY=signed accepts only records signed by a key bound to their subject, or administrative writes with the operator token`,
          { statusCode: 401 },
        );
      }
      const found = await boundSigningKeys<KeyBinding>(record[member], (kid) => keys.lookup(kid));
      const verdict = verifyRecordSignature(backend, profile, kind, record, (kid) => found.get(kid), {
        requirePq: options.requirePq === true,
      });
      if (!verdict.ok) {
        if (verdict.reason === 'unknown_key') {
          throw httpError(
            'FORBIDDEN',
            `Key ${verdict.kid ?? '?'} is not bound to any subject here. ${HOW_KEYS_ARE_BOUND}`,
            {
              details: { kid: verdict.kid ?? null },
            },
          );
        }
        throw protocolError(verdict.code, profile, verdict.message, { statusCode: 400 });
      }
      const subjects = recordSubjects(kind, record);
      const classical = found.get(verdict.classicalKid) as KeyBinding;
      const pq = verdict.pqKid === null ? undefined : found.get(verdict.pqKid);
      const boundToSubject = (binding: KeyBinding | undefined) =>
        binding !== undefined && subjects.some((s) => binding.subjects.includes(s));
      if (
        subjects.length === 0 ||
        !boundToSubject(classical) ||
        (verdict.pqKid !== null && !boundToSubject(pq))
      ) {
        throw httpError(
          'FORBIDDEN',
          subjects.length === 0
            ? `A ${kind} names no party whose key could sign it; only an administrative write (operator token) can store it`
            : `The signature is valid but key ${verdict.classicalKid} is not bound to ${subjects.join(' or ')}. ${HOW_KEYS_ARE_BOUND}`,
          { details: { kid: verdict.classicalKid, subjects } },
        );
      }
      // P205: an agent whose passport keys are bound here already has its own keys (its passport's, and its
      // principal's from its verified bundle): only they commission it, not any bound human naming itself.
      if (kind === COMMISSIONING && options.agentHasLiveKeys !== undefined) {
        const agentId = record['agent_id'];
        const boundToAgent = (binding: KeyBinding | undefined) =>
          binding !== undefined && typeof agentId === 'string' && binding.subjects.includes(agentId);
        if (
          typeof agentId === 'string' &&
          (await options.agentHasLiveKeys(agentId)) &&
          (!boundToAgent(classical) || (verdict.pqKid !== null && !boundToAgent(pq)))
        ) {
          throw httpError(
            'FORBIDDEN',
            `Agent ${agentId} has keys here: its commissioning certificate is signed by a key bound to the agent (its passport's, or its principal's from a verified bundle of it), not by key ${verdict.classicalKid}. ${HOW_KEYS_ARE_BOUND}`,
            { details: { kid: verdict.classicalKid, subjects, agent_id: agentId } },
          );
        }
      }
      // P199: a record about an agent that also names a human is the agent's or its principal's to sign, not any
      // human's who names itself there.
      const agentId = agentActedFor(kind, rule?.subjectFields ?? [], record);
      if (agentId !== undefined) {
        const principal = await principalOf?.(agentId);
        const acts = (binding: KeyBinding | undefined) => actsForAgent(binding, agentId, record, principal);
        if (!acts(classical) || (verdict.pqKid !== null && !acts(pq))) {
          throw httpError(
            'FORBIDDEN',
            `The signature is valid but key ${verdict.classicalKid} does not act for agent ${agentId}: a record about an agent is signed by a key bound to the agent, or to the human its commissioning certificate here names. ${HOW_KEYS_ARE_BOUND}`,
            { details: { kid: verdict.classicalKid, subjects, agent_id: agentId } },
          );
        }
      }
      if (kind === ARBITRATION) {
        await refuseUnfitPanel(
          record,
          pq === undefined ? [classical] : [classical, pq],
          disputePartiesOf,
          options.appointedArbitrators,
          options.panelQuorum ?? 1,
        );
      }
      if (kind === DISPUTE) await refuseUnknownRespondent(profile, record, options.agentKnown);
      if (kind === SUCCESSION) {
        await refuseUnprovenConsent(
          {
            backend,
            profile,
            keys,
            requirePq: options.requirePq === true,
            refuseRevoked: async (ids) => {
              if (revocation !== undefined) await refuseRevoked(revocation, ids);
            },
            howKeysAreBound: HOW_KEYS_ARE_BOUND,
          },
          record,
        );
      }
      const spokenFor = subjects.filter((s) => classical.subjects.includes(s));
      // P43: the signing kids and the subjects they speak for here must not be on any revocation list.
      if (revocation !== undefined) {
        const kidsUsed =
          verdict.pqKid === null ? [verdict.classicalKid] : [verdict.classicalKid, verdict.pqKid];
        await refuseRevoked(revocation, [...spokenFor, ...kidsUsed]);
      }
      // P174: marked before the record is stored (a failed store leaves a kept binding, never a pruned author).
      const used = [{ kid: verdict.classicalKid, binding: classical }];
      if (verdict.pqKid !== null && pq !== undefined) used.push({ kid: verdict.pqKid, binding: pq });
      for (const { kid, binding } of used) {
        const mine = subjects.filter((s) => binding.subjects.includes(s));
        if (keys.markAuthorised !== undefined && !(await keys.markAuthorised(kid, mine))) {
          throw httpError(
            'FORBIDDEN',
            `Key ${kid} is no longer bound to ${mine.join(' or ')}. ${HOW_KEYS_ARE_BOUND}`,
            { details: { kid, subjects } },
          );
        }
      }
      const authorship = {
        status: 'verified',
        kid: verdict.classicalKid,
        evidence: classical.evidence,
        ...(verdict.pqKid === null ? {} : { pqKid: verdict.pqKid }),
      } as const;
      if (kind !== ARBITRATION) return authorship;
      return { ...authorship, panelMembers: panelMembersOf(record, classical) };
    },
  };
}

/** P297: the panel members `binding` speaks for, in the order the resolution names them, each once. */
function panelMembersOf(record: Readonly<Record<string, unknown>>, binding: KeyBinding): string[] {
  const panel = Array.isArray(record['arbitrator_ids']) ? (record['arbitrator_ids'] as unknown[]) : [];
  const named = panel.filter((id): id is string => typeof id === 'string');
  return [...new Set(named)].filter((id) => binding.subjects.includes(id));
}

/** P203: a signed resolution resolves a dispute filed here, and no party to it sits on its panel or signs it. */
async function refuseUnfitPanel(
  record: Readonly<Record<string, unknown>>,
  signers: readonly KeyBinding[],
  partiesOf: DisputePartiesLookup | undefined,
  appointed: ReadonlySet<string> | undefined,
  quorum: number,
): Promise<void> {
  const disputeId = record['dispute_id'];
  const verdict =
    partiesOf === undefined
      ? ({ ok: false, reason: 'dispute_unknown' } as const)
      : await judgePanel(record, signers, partiesOf, appointed, quorum);
  if (verdict.ok) return;
  if (verdict.reason === 'panel_too_small') {
    throw httpError(
      'FORBIDDEN',
      `The panel names ${verdict.panelSize} distinct arbitrator(s) and this service counts ${verdict.quorum} distinct appointed arbitrators' signatures per resolution (RECORDS_PANEL_QUORUM): it could never resolve the dispute`,
      { details: { dispute_id: disputeId, quorum: verdict.quorum, panel_size: verdict.panelSize } },
    );
  }
  if (verdict.reason === 'not_appointed') {
    throw httpError(
      'FORBIDDEN',
      `${verdict.arbitrator} is not an arbitrator appointed on this service (RECORDS_ARBITRATORS): a signed resolution's panel names appointed arbitrators only, or it is written with the operator token`,
      { details: { dispute_id: disputeId, arbitrator: verdict.arbitrator } },
    );
  }
  if (verdict.reason === 'dispute_unknown') {
    throw conflict(
      `No dispute ${String(disputeId)} is filed here: a signed arbitration resolution resolves a dispute record stored on this service (POST /v2/dispute/record first), or is written with the operator token`,
      { dispute_id: disputeId },
    );
  }
  throw httpError(
    'FORBIDDEN',
    verdict.reason === 'party_on_panel'
      ? `${verdict.party} is a party to dispute ${String(disputeId)}, so it cannot sit on the panel that resolves it`
      : `The signature is valid but its key is bound to ${verdict.party}, a party to dispute ${String(disputeId)}: a party cannot sign the resolution of its own dispute`,
    { details: { dispute_id: disputeId, party: verdict.party } },
  );
}

/** P208: a signed dispute names as its respondent another agent this service knows. */
async function refuseUnknownRespondent(
  profile: ProtocolProfile,
  record: Readonly<Record<string, unknown>>,
  known: AgentKnownLookup | undefined,
): Promise<void> {
  const verdict =
    known === undefined
      ? ({ ok: false, reason: 'unknown', respondent: String(record['respondent_agent_id']) } as const)
      : await judgeRespondent(record, known);
  if (verdict.ok) return;
  if (verdict.reason === 'self') {
    throw badBody(
      profile,
      'Invalid dispute_record: /respondent_agent_id must differ from initiator_agent_id',
      [
        {
          path: '/respondent_agent_id',
          message: 'must differ from initiator_agent_id: a dispute has two parties',
        },
      ],
    );
  }
  throw conflict(
    `No agent ${verdict.respondent} is known here: a signed dispute names as respondent an agent commissioned on this service or whose bundle was verified here (POST /verify its bundle first), or is filed with the operator token`,
    { respondent_agent_id: verdict.respondent },
  );
}

async function refuseRevoked(gate: RevocationGate, ids: readonly string[]): Promise<void> {
  const result = await gate.check(ids);
  if (result.status === 'revoked') {
    throw new HttpError({
      statusCode: 403,
      code: result.code,
      message: `${result.id} is revoked, so its signatures no longer authorise writes (${result.message}); only an administrative write (operator token) can store this record`,
      retryable: false,
      details: { revoked: result.id },
    });
  }
  if (result.status === 'unknown') {
    // Fail closed (P43): a write that might be by a revoked key waits for a fresh list.
    throw new HttpError({
      statusCode: 503,
      code: result.code,
      message: `The revocation status of the signer cannot be established, so the write is refused for now: ${result.message}`,
      retryable: true,
      headers: { 'retry-after': '5' },
    });
  }
}

/** An in-memory key directory (tests, and until the store-backed directory is wired). */
export class MemoryKeyDirectory implements KeyBindingLookup {
  readonly #bindings = new Map<string, KeyBinding>();
  bind(binding: KeyBinding): void {
    const known = this.#bindings.get(binding.kid);
    const subjects = new Set([...(known?.subjects ?? []), ...binding.subjects]);
    this.#bindings.set(binding.kid, { ...binding, subjects: [...subjects] });
  }
  lookup(kid: string): KeyBinding | undefined {
    return this.#bindings.get(kid);
  }
}
