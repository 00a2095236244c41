// V2 check `key_validity`, all of its clock-free part: kid derivation (reported while signatures are read),
// passport status, unused revoked keys, and the facts time-checks.ts evaluates at every finalize.
// DECISIONS D8 (active passport, RPR not expired, signing keys valid); PROTOCOL §4.4, §4.5, §6.9.
// Errors KID_MISMATCH, AGENT_REVOKED (here); KEY_REVOKED, KEY_EXPIRED, RPR_INVALID (time-checks.ts).
import { describe, prop, propString } from '../../json.ts';
import type { SigningKeyUse, TimeDependentFacts } from '../../types.ts';
import type { V2Context } from '../context.ts';

/**
 * Unused revoked keys named one warning each before the rest are counted in one (P283): a signer lists as many as
 * it likes at ~200 bytes each, and a warning each made the answer grow with them (P149, P269).
 */
export const UNUSED_REVOKED_NAMED = 10;

/** A key whose kid is not derived from its public key, reported once per kid, when a signature used it. */
export function reportKidMismatch(ctx: V2Context, kid: string): void {
  if (ctx.reportedKids.has(kid)) return;
  ctx.reportedKids.add(kid);
  ctx.ledger.fail(
    'key_validity',
    'KID_MISMATCH',
    `Key ${kid} does not match its public key (kid derivation, PROTOCOL §4.4)`,
  );
}

/** Records the rest of `key_validity`; returns the facts finalize checks against the clock. */
export function checkKeyValidity(ctx: V2Context): TimeDependentFacts {
  const { ledger } = ctx;
  const status = prop(ctx.artifacts.agent_passport.payload, 'status');
  if (status !== 'active') {
    ledger.fail(
      'key_validity',
      'AGENT_REVOKED',
      `Agent passport status is '${describe(status)}' (must be 'active')`,
    );
  }
  // D8: a revoked key nobody used is only a warning (upstream fails every bundle of such a passport). P283: the
  // signer decides how many it lists, so the first ten are named as before and the rest counted in one warning.
  const unused = new Set<string>();
  for (const record of ctx.keys.records) {
    if (prop(record.entry, 'status') === 'revoked' && !ctx.usedKeys.has(record)) {
      unused.add(`Key ${record.kid} (${record.source}) is revoked but signed nothing in this bundle`);
    }
  }
  let n = 0;
  for (const message of unused) if (n++ < UNUSED_REVOKED_NAMED) ledger.warn(message);
  if (unused.size > UNUSED_REVOKED_NAMED) {
    ledger.warn(
      `… and ${unused.size - UNUSED_REVOKED_NAMED} more revoked keys signed nothing in this bundle`,
    );
  }
  ledger.settle('key_validity');

  const signingKeys: SigningKeyUse[] = [];
  for (const record of ctx.usedKeys) {
    const expires = prop(record.entry, 'expires_at');
    signingKeys.push({
      kid: record.kid,
      source: record.source,
      status: propString(record.entry, 'status') ?? describe(prop(record.entry, 'status')),
      createdAt: propString(record.entry, 'created_at') ?? '',
      expiresAt: typeof expires === 'string' ? expires : null,
    });
  }
  const rprExpires = prop(ctx.artifacts.responsible_principal_record.payload, 'expires_at');
  const sessionExpires = propString(ctx.parts.manifest, 'session_expires_at');
  return {
    signingKeys,
    rprExpiresAt: typeof rprExpires === 'string' ? rprExpires : null,
    ...(sessionExpires === undefined ? {} : { sessionExpiresAt: sessionExpires }),
  };
}
