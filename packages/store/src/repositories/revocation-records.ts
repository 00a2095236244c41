// What the revocation repository stores and answers: entries, issued lists, attestations, issuer keys and
// emergency tokens, and the repository's interface. D20 (list_number never goes down), D21.
import type { StoreDialect } from '../migrations/migration.ts';

export interface RevocationEntryRecord {
  readonly agent_id: string;
  readonly revoked_at: string;
  readonly reason_hash: string;
  /** When the service recorded the revocation. */
  readonly recorded_at: string;
  /** The first list that carried it. */
  readonly first_list_number: number;
}

export interface IssuedRevocationList {
  readonly jurisdiction: string;
  readonly list_number: number;
  /** The signed list exactly as it is served. */
  readonly list_json: string;
  readonly issued_at: string;
  readonly next_update: string;
  readonly entry_count: number;
}

/** What a list builder gets: the number to use, every entry in revocation order, the previous list. */
export interface ListIssueContext {
  readonly jurisdiction: string;
  readonly listNumber: number;
  readonly entries: readonly RevocationEntryRecord[];
  readonly previous: IssuedRevocationList | undefined;
}

/** The signed list a builder returns; it is stored in the same transaction that took its number. */
export interface ListDraft {
  readonly list_json: string;
  readonly issued_at: string;
  readonly next_update: string;
}

/** Builds and signs the list; throwing rolls the whole transaction back (no number is used up). */
export type ListBuilder = (context: ListIssueContext) => ListDraft | Promise<ListDraft>;

export type RevokeResult =
  | { readonly status: 'created'; readonly entry: RevocationEntryRecord; readonly list: IssuedRevocationList }
  | { readonly status: 'exists'; readonly entry: RevocationEntryRecord };

export type IssueResult =
  | { readonly issued: true; readonly list: IssuedRevocationList }
  | { readonly issued: false; readonly latest: IssuedRevocationList | undefined };

export interface IssueOptions {
  /** Checked against the latest list under the lock: false skips issuing (another replica already did). */
  readonly onlyIf?: (latest: IssuedRevocationList | undefined) => boolean;
}

export interface AttestationIssuance {
  readonly jurisdiction: string;
  readonly agent_id: string;
  readonly rpr_hash: string;
  readonly key_id: string;
  readonly attested_at: string;
  readonly expires_at: string | null;
  readonly attestation_json: string;
}

/** Signs an attestation once the agent is found not revoked, under the list lock (P400); throwing rolls back. */
export type AttestationSigner = () => AttestationIssuance | Promise<AttestationIssuance>;

export type AttestResult =
  | { readonly status: 'issued'; readonly issuance: AttestationIssuance; readonly seq: number }
  | { readonly status: 'revoked'; readonly entry: RevocationEntryRecord };

/** When an issued attestation was made and until when it holds (null: no expiry was written). */
export interface AttestationTimes {
  readonly attested_at: string;
  readonly expires_at: string | null;
}

export interface IssuerKeyRecord {
  readonly key_id: string;
  readonly public_key_b64: string;
  readonly first_used_at: string;
}

/** Who vouched for a token: a verified bundle's passport, or the operator. */
export type EmergencyTokenSource = 'bundle' | 'operator';

export interface EmergencyTokenRecord {
  readonly agent_id: string;
  readonly token: string;
  /** The agent's own key ids, revoked with it. */
  readonly kids: readonly string[];
  readonly human_id: string | null;
  readonly source: EmergencyTokenSource;
  readonly registered_at: string;
  /** When the token was used (it is good once); null while unused. */
  readonly used_at: string | null;
}

export interface EmergencyTokenRegistration {
  readonly agent_id: string;
  readonly token: string;
  readonly kids: readonly string[];
  readonly human_id: string | null;
  readonly source: EmergencyTokenSource;
}

/**
 * `created`: new; `unchanged`: the same token was already registered (kept as it was); `replaced`: the
 * operator replaced an unused token, or took over the same one registered from a bundle; `conflict`: another token is registered and replacing was not
 * allowed; `used`: the registered token was already used (nothing changes any more).
 */
export type EmergencyRegisterResult = {
  readonly status: 'created' | 'unchanged' | 'replaced' | 'conflict' | 'used';
  readonly record: EmergencyTokenRecord;
};

export type EmergencyRevokeResult =
  | {
      readonly status: 'revoked';
      readonly record: EmergencyTokenRecord;
      /** Ids (agent id, then kids) newly entered; ones already revoked are left as they were. */
      readonly added: readonly string[];
      readonly list: IssuedRevocationList;
    }
  /** The token was used already, or this secret was used for another agent. */
  | { readonly status: 'used' }
  /** No such token is registered for the agent any more (replaced meanwhile). */
  | { readonly status: 'missing' };

export interface RevocationRepository {
  getEntry(jurisdiction: string, agentId: string): Promise<RevocationEntryRecord | undefined>;
  /** Every entry of the jurisdiction, in revocation order. */
  entries(jurisdiction: string): Promise<RevocationEntryRecord[]>;
  countEntries(jurisdiction: string): Promise<number>;
  latestList(jurisdiction: string): Promise<IssuedRevocationList | undefined>;
  getList(jurisdiction: string, listNumber: number): Promise<IssuedRevocationList | undefined>;
  /**
   * Records a revocation and issues the next list carrying it, in one transaction. An agent already
   * revoked is `exists` and nothing changes (revocations are permanent and never rewritten).
   */
  revoke(
    jurisdiction: string,
    entry: { readonly agent_id: string; readonly revoked_at: string; readonly reason_hash: string },
    build: ListBuilder,
  ): Promise<RevokeResult>;
  /** Issues the next list (number = latest + 1) from the current entries, unless `onlyIf` says no. */
  issueList(jurisdiction: string, build: ListBuilder, options?: IssueOptions): Promise<IssueResult>;
  /** Appends an issued attestation to the jurisdiction's log; returns its sequence number. */
  recordAttestation(issuance: AttestationIssuance): Promise<number>;
  /**
   * Checks that the agent is not revoked, then signs (`sign` reads the clock) and records the attestation, all
   * while holding the jurisdiction's list lock in share mode: a revocation or list issued meanwhile waits, so no
   * attestation is ever dated after the list that revokes its agent (P400).
   */
  issueAttestation(jurisdiction: string, agentId: string, sign: AttestationSigner): Promise<AttestResult>;
  countAttestations(jurisdiction: string, agentId?: string): Promise<number>;
  /**
   * The times of the attestations issued for this agent and RPR hash, newest first (at most 64): empty when none
   * was issued. The caller decides which still hold (P211: an expired one no longer vouches for the agent).
   */
  attestationTimes(jurisdiction: string, agentId: string, rprHash: string): Promise<AttestationTimes[]>;
  /** Notes a signing key the first time it is used; returns its record (first use time kept). */
  registerKey(
    jurisdiction: string,
    purpose: string,
    key: { readonly key_id: string; readonly public_key_b64: string },
    at?: Date,
  ): Promise<IssuerKeyRecord>;
  keys(jurisdiction: string, purpose: string): Promise<IssuerKeyRecord[]>;
  getEmergencyToken(jurisdiction: string, agentId: string): Promise<EmergencyTokenRecord | undefined>;
  /** The emergency tokens registered under an agent id of 32 characters (the key id's length; P211's sweep). */
  emergencyTokensOfKeyIdLength(jurisdiction: string): Promise<EmergencyTokenRecord[]>;
  /** Registers an agent's emergency token; an existing one is replaced only with `replace` and unused. */
  registerEmergencyToken(
    jurisdiction: string,
    registration: EmergencyTokenRegistration,
    options?: { readonly replace?: boolean },
  ): Promise<EmergencyRegisterResult>;
  /**
   * Uses the agent's token (the caller has checked the secret against `token`): marks it used, enters
   * the agent id and its kids, and issues the next list, in one transaction (durable before it returns).
   */
  emergencyRevoke(
    jurisdiction: string,
    request: {
      readonly agent_id: string;
      readonly token: string;
      readonly revoked_at: string;
      readonly reason_hash: string;
    },
    build: ListBuilder,
  ): Promise<EmergencyRevokeResult>;
}

export interface RevocationRepositoryOptions {
  readonly dialect: StoreDialect;
  readonly clock: () => Date;
  /** Issued lists kept per jurisdiction, newest first (default 32); entries are never dropped. */
  readonly keepLists?: number;
}
