// Rows of the revocation tables to records, and the checks on the keys the repository is asked about.
import type { Selectable } from 'kysely';
import type {
  EmergencyTokenRecord,
  IssuedRevocationList,
  RevocationEntryRecord,
} from './revocation-records.ts';
import type {
  EmergencyTokensTable,
  RevocationEntriesTable,
  RevocationListsTable,
} from './revocation-tables.ts';

const JURISDICTION_PATTERN = /^[\w:.-]{1,64}$/;

export function assertJurisdiction(value: string): void {
  if (typeof value !== 'string' || !JURISDICTION_PATTERN.test(value)) {
    throw new TypeError('jurisdiction must match ^[\\w:.\\-]{1,64}$');
  }
}

export function toEntry(row: Selectable<RevocationEntriesTable>): RevocationEntryRecord {
  return {
    agent_id: row.agent_id,
    revoked_at: row.revoked_at,
    reason_hash: row.reason_hash,
    recorded_at: row.recorded_at,
    first_list_number: Number(row.first_list_number),
  };
}

export function assertEmergencyToken(value: string): void {
  if (typeof value !== 'string' || !/^sha256:[0-9a-f]{64}$/.test(value)) {
    throw new TypeError('emergency token must be sha256:<64 hex>');
  }
}

export function toEmergencyToken(row: Selectable<EmergencyTokensTable>): EmergencyTokenRecord {
  const kids = JSON.parse(row.kids_json) as unknown;
  return {
    agent_id: row.agent_id,
    token: row.token,
    kids: Array.isArray(kids) ? kids.filter((k): k is string => typeof k === 'string') : [],
    human_id: row.human_id,
    source: row.source === 'operator' ? 'operator' : 'bundle',
    registered_at: row.registered_at,
    used_at: row.used_at,
  };
}

export function toList(row: Selectable<RevocationListsTable>): IssuedRevocationList {
  return {
    jurisdiction: row.jurisdiction,
    list_number: Number(row.list_number),
    list_json: row.list_json,
    issued_at: row.issued_at,
    next_update: row.next_update,
    entry_count: Number(row.entry_count),
  };
}
