// The revocation service's tables as Kysely sees them (created by the store's migrations). D20, D21.
import type { Database, SequenceColumn } from '../schema.ts';

/** Latest list number issued per jurisdiction (the row issuers lock). */
export interface RevocationStateTable {
  jurisdiction: string;
  list_number: number | string;
  updated_at: string;
}

/** Permanent revocation entries; the reason is kept only as its hash. */
export interface RevocationEntriesTable {
  seq: SequenceColumn;
  jurisdiction: string;
  agent_id: string;
  revoked_at: string;
  reason_hash: string;
  recorded_at: string;
  /** The first list that carried the entry. */
  first_list_number: number | string;
}

/** Issued, signed lists as served (JSON text byte for byte). */
export interface RevocationListsTable {
  jurisdiction: string;
  list_number: number | string;
  list_json: string;
  issued_at: string;
  next_update: string;
  entry_count: number;
}

export interface AttestationIssuanceTable {
  seq: SequenceColumn;
  jurisdiction: string;
  agent_id: string;
  rpr_hash: string;
  key_id: string;
  attested_at: string;
  expires_at: string | null;
  attestation_json: string;
}

export interface IssuerKeysTable {
  jurisdiction: string;
  purpose: string;
  key_id: string;
  public_key_b64: string;
  first_used_at: string;
}

/** Emergency revocation tokens (migration 0006): one per agent, each usable once. */
export interface EmergencyTokensTable {
  jurisdiction: string;
  agent_id: string;
  /** `sha256:<hex>` of the 32-byte secret (the passport's emergency_revocation_token). */
  token: string;
  /** JSON array of the kids revoked with the agent. */
  kids_json: string;
  human_id: string | null;
  source: string;
  registered_at: string;
  used_at: string | null;
}

/** The tables of migrations 0004 and 0006, as Kysely sees them. */
export interface RevocationTables {
  revocation_state: RevocationStateTable;
  revocation_entries: RevocationEntriesTable;
  revocation_lists: RevocationListsTable;
  attestation_issuance: AttestationIssuanceTable;
  issuer_keys: IssuerKeysTable;
  emergency_tokens: EmergencyTokensTable;
}

export type RevocationDatabase = Database & RevocationTables;
