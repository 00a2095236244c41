// session_nonce: one nonce across manifest, artifacts, entries and checkpoints; expiry; audience.
// PROTOCOL §6.4 (binding, splicing), §6.10 steps 3–3b; DECISIONS D5 (session_expires_at, E501 at finalize).
import { describe, prop, propString } from '../../json.ts';
import { ARTIFACTS, type V2Context } from '../context.ts';

const CHECK = 'session_nonce';
const NONCE = /^[0-9a-f]{64}$/;

export function checkSessionNonce(ctx: V2Context): void {
  const { ledger } = ctx;
  const settings = ctx.runtime.settings;
  const manifest = ctx.parts.manifest;
  const nonce = prop(manifest, 'session_nonce');

  if (settings.requireSessionBinding) {
    if (typeof nonce !== 'string' || !NONCE.test(nonce)) {
      ledger.fail(CHECK, 'SESSION_NONCE_INVALID', `Invalid session_nonce in manifest: ${describe(nonce)}`);
    } else {
      for (const spec of ARTIFACTS) {
        const value = prop(ctx.artifacts[spec.field].payload, 'session_nonce');
        if (value !== nonce) {
          ledger.fail(
            CHECK,
            'SESSION_NONCE_INVALID',
            `Session nonce mismatch: ${spec.field} has ${describe(value)}, manifest has ${nonce}`,
          );
        }
      }
      const groups = [
        ['audit_entries', ctx.entries.map((e) => e.value)],
        ['pq_checkpoints', ctx.checkpoints.map((c) => c.value)],
      ] as const;
      for (const [name, values] of groups) {
        let first = -1;
        let count = 0;
        values.forEach((v, i) => {
          if (prop(v, 'session_nonce') !== nonce) {
            count++;
            if (first < 0) first = i;
          }
        });
        if (count > 0) {
          const got = describe(prop(values[first], 'session_nonce'));
          const more = count > 1 ? ` (and ${count - 1} more)` : '';
          ledger.fail(
            CHECK,
            'SESSION_NONCE_INVALID',
            `Session nonce mismatch: ${name}[${first}] has ${got}, manifest has ${nonce}${more}`,
          );
        }
      }
    }
    ledger.settle(CHECK);
  }

  // Expiry is evaluated at finalize (time-dependent); here only its presence matters.
  const expires = propString(manifest, 'session_expires_at');
  if (expires !== undefined) ledger.settle(CHECK);
  else if (settings.requireSessionExpiry) {
    ledger.fail(
      CHECK,
      'SESSION_EXPIRED',
      'Policy requires session_expires_at but manifest does not include it',
    );
  }

  const audience = prop(manifest, 'intended_verifier');
  if (settings.requireAudienceBinding && audience === undefined) {
    ledger.fail(
      'policy',
      'POLICY_VIOLATION',
      'Policy requires audience binding but manifest does not include intended_verifier',
    );
  } else if (settings.verifierId !== null && audience !== undefined && audience !== settings.verifierId) {
    ledger.fail(
      'policy',
      'POLICY_VIOLATION',
      `Bundle intended for verifier '${describe(audience)}', not '${settings.verifierId}'`,
    );
  }
}
