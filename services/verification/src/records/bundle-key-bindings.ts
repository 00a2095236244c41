// The key bindings a V2 bundle proves, read from its parsed request: passport keys → agent_id, RPR binding
// keys → human_id and the agent. Issue 15 item 1 (kids re-derived, bundle hash kept as the evidence). Runs in
// the verification worker, beside the analysis, so the main thread never re-reads a body (issue 14 item 1).
import { decodeBase64Strict, deriveKid } from '@proto/core';
import type { KeyBindingRow } from '@proto/store';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One binding as the worker hands it to the main thread (plain data, clonable). */
export type BundleKeyBinding = Omit<KeyBindingRow, 'boundAt'>;

/** The bindings a verified V2 bundle proves; keys whose kid does not derive from their bytes are skipped. */
export function bindingsOfBundle(request: unknown, evidence: string): BundleKeyBinding[] {
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
  const rows: BundleKeyBinding[] = [];
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
