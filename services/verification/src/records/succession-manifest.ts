// P561: a succession record's `memory_transfer_manifest_hash` names the ceremony's memory transfer manifest (PROTOCOL
// §10.2 gives it no form beyond a non-empty string). When that manifest is stored here, the record names it, not
// another: a record naming a hash that is not its ceremony's stored manifest is refused 422 E201 (MANIFEST_HASH_MISMATCH,
// "manifest hash ≠ artifact"); a hash naming nothing stored here is stored with a warning saying it was not checked.
import type { ProtocolProfile } from '@proto/core';
import { type HttpError, protocolError } from '@proto/service-kit';
import { RecordIdRetiredError, type RecordRepository } from '@proto/store';
import type { JsonObject } from './body.ts';
import { payloadHash } from './ids.ts';

export const MANIFEST = 'memory_transfer_manifest';

/** The index of stored manifests by ceremony: the first manifest of a (predecessor, successor, nonce) ceremony. */
const CEREMONY_INDEX = `${MANIFEST}_ceremony`;

/** What the index keeps per ceremony: the manifest's D14 content id and its payload hash (P514). */
interface CeremonyEntry {
  readonly id: string;
  readonly payload_hash: string;
}

/** A manifest's and a succession record's shared members name their ceremony. */
function ceremonyKey(record: Readonly<Record<string, unknown>>): string {
  const key = payloadHash({
    predecessor_agent_id: record['predecessor_agent_id'],
    successor_agent_id: record['successor_agent_id'],
    session_nonce: record['session_nonce'],
  });
  if (!key.ok) throw new Error(`ceremony key of a validated record failed: ${key.error.message}`);
  return key.value;
}

const sameCeremony = (a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean =>
  ceremonyKey(a) === ceremonyKey(b);

/**
 * Notes a newly stored manifest as its ceremony's, in the transaction that stores it. The first manifest of a ceremony
 * stays its entry (a later one is still found by its own id, below); an entry evicted by retention is not written again.
 */
export async function indexManifestCeremony(
  records: Pick<RecordRepository, 'put'>,
  id: string,
  manifest: JsonObject,
): Promise<void> {
  const payload = payloadHash(manifest);
  if (!payload.ok) throw new Error(`payload hash of a validated manifest failed: ${payload.error.message}`);
  const entry: CeremonyEntry = { id, payload_hash: payload.value };
  try {
    await records.put(CEREMONY_INDEX, ceremonyKey(manifest), entry);
  } catch (error) {
    if (!(error instanceof RecordIdRetiredError)) throw error;
  }
}

/**
 * Throws 422 E201 when the succession record's `memory_transfer_manifest_hash` is not its ceremony's stored manifest:
 * it names, by D14 id, a stored manifest of another ceremony, or it names nothing stored while this ceremony's manifest
 * is (matched by its D14 id or its payload hash). Returns the warning of a hash naming no manifest stored here.
 */
export async function refuseForeignManifest(
  records: Pick<RecordRepository, 'get'>,
  record: JsonObject,
  profile: ProtocolProfile,
): Promise<string[]> {
  const named = String(record['memory_transfer_manifest_hash']); // schema-checked string
  const byId = (await records.get(MANIFEST, named))?.record as JsonObject | undefined;
  if (byId !== undefined) {
    if (sameCeremony(byId, record)) return [];
    throw mismatch(profile, record, named, 'names the stored manifest of another ceremony', {
      named_manifest: ceremonyOf(byId),
    });
  }
  const entry = (await records.get(CEREMONY_INDEX, ceremonyKey(record)))?.record as CeremonyEntry | undefined;
  if (entry === undefined) {
    return [
      `memory_transfer_manifest_hash ${JSON.stringify(named.slice(0, 80))} names no memory transfer manifest stored here, so it was not checked: POST the manifest to /v2/succession/memory-transfer first to have it checked`,
    ];
  }
  if (named === entry.id || named === entry.payload_hash) return [];
  throw mismatch(profile, record, named, "differs from the ceremony's stored manifest", {
    stored_manifest: { id: entry.id, payload_hash: entry.payload_hash },
  });
}

const ceremonyOf = (record: JsonObject) => ({
  predecessor_agent_id: record['predecessor_agent_id'],
  successor_agent_id: record['successor_agent_id'],
  session_nonce: record['session_nonce'],
});

function mismatch(
  profile: ProtocolProfile,
  record: JsonObject,
  named: string,
  why: string,
  details: Record<string, unknown>,
): HttpError {
  return protocolError(
    'MANIFEST_HASH_MISMATCH',
    profile,
    `The succession record's memory_transfer_manifest_hash ${why}: a succession names its own ceremony's memory transfer manifest (by its id, or its payload hash)`,
    {
      // E201's own status in the registry (422): the record is well formed, and the artifact it names is not this.
      details: {
        reason: 'memory_transfer_manifest_mismatch',
        memory_transfer_manifest_hash: named,
        ceremony: ceremonyOf(record),
        ...details,
      },
    },
  );
}
