// Feeds the key directory from verified V2 bundles, off the request path: passport keys → agent_id, RPR binding
// keys → human_id and the agent. Issue 15 item 1 (kids re-derived, bundle hash kept as the evidence).
import { decodeBase64Strict, deriveKid } from '@proto/core';
import type { KeyBindingRow, Store } from '@proto/store';
import type { KeyBinding, KeyBindingLookup } from './write-authorization.ts';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What the verify route hands over once its answer is sent: the verdict, the bundle's facts, the body. */
export interface VerifiedBundleEvent {
  readonly verified: boolean;
  readonly version: string;
  readonly bundleHash?: string | undefined;
  /** The request body (JSON bytes or the decoded value). Parsed here, after the answer, only for new bundles. */
  readonly body: Buffer | Uint8Array | unknown;
}

/** The bindings a verified V2 bundle proves; keys whose kid does not derive from their bytes are skipped. */
export function bindingsOfBundle(request: unknown, evidence: string): Omit<KeyBindingRow, 'boundAt'>[] {
  const signed = isObject(request) ? request['signed_bundle'] : undefined;
  const bundle = isObject(signed) ? signed['bundle'] : undefined;
  if (!isObject(bundle)) return [];
  const passport = isObject(bundle['agent_passport']) ? bundle['agent_passport']['payload'] : undefined;
  const rpr = isObject(bundle['responsible_principal_record'])
    ? bundle['responsible_principal_record']['payload']
    : undefined;
  if (!isObject(passport) || typeof passport['agent_id'] !== 'string') return [];
  const agentId = passport['agent_id'];
  const humanId = isObject(rpr) && typeof rpr['human_id'] === 'string' ? rpr['human_id'] : undefined;
  const rows: Omit<KeyBindingRow, 'boundAt'>[] = [];
  const add = (entries: unknown, role: KeyBindingRow['role'], subjects: readonly string[]) => {
    if (!Array.isArray(entries)) return;
    for (const entry of entries) {
      if (!isObject(entry)) continue;
      const { kid, alg, public_key_b64: b64, expires_at: expires, status } = entry;
      if (typeof kid !== 'string' || typeof alg !== 'string' || typeof b64 !== 'string') continue;
      if (status !== undefined && status !== 'active') continue;
      const raw = decodeBase64Strict(b64);
      if (raw === undefined || deriveKid(alg, raw) !== kid) continue;
      for (const subject of subjects) {
        rows.push({
          kid,
          subject,
          alg,
          publicKeyB64: b64,
          role,
          evidence,
          expiresAt: typeof expires === 'string' ? expires : null,
        });
      }
    }
  };
  add(passport['keys'], 'passport', [agentId]);
  add(
    isObject(rpr) ? rpr['binding_keys'] : undefined,
    'principal',
    humanId === undefined ? [agentId] : [humanId, agentId],
  );
  return rows;
}

/**
 * Returns the hook the verify route calls after answering. Work is deferred with setImmediate, and a
 * bundle hash seen before is skipped without parsing, so repeated verifications cost a Set lookup.
 */
export function keyBindingFeeder(
  store: Store,
  log: { warn(obj: object, msg: string): void },
  seenLimit = 10_000,
): (event: VerifiedBundleEvent) => void {
  const seen = new Set<string>();
  return (event) => {
    if (!event.verified || !event.version.startsWith('2') || event.bundleHash === undefined) return;
    const hash = event.bundleHash;
    if (seen.has(hash)) return;
    if (seen.size >= seenLimit) seen.clear();
    seen.add(hash);
    setImmediate(() => {
      let value: unknown = event.body;
      if (event.body instanceof Uint8Array) {
        try {
          value = JSON.parse(Buffer.from(event.body).toString('utf8'));
        } catch {
          return;
        }
      }
      store.keys.bind(bindingsOfBundle(value, hash)).catch((error: unknown) => {
        seen.delete(hash);
        log.warn({ err: error }, 'key directory: could not store the bindings of a verified bundle');
      });
    });
  };
}

/** The key directory as the write policy reads it, from the store. */
export function storeKeyLookup(store: Store): KeyBindingLookup {
  return {
    async lookup(kid) {
      const rows = await store.keys.lookup(kid);
      const first = rows[0];
      if (first === undefined) return undefined;
      const publicKey = decodeBase64Strict(first.publicKeyB64);
      if (publicKey === undefined) return undefined;
      const binding: KeyBinding = {
        kid,
        alg: first.alg,
        publicKey,
        subjects: rows.map((r) => r.subject),
        evidence: first.evidence,
      };
      return binding;
    },
  };
}
