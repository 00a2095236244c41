// checkpoints: each PQ checkpoint against the entries it covers, its nonce and both signature halves.
// DECISIONS D6 (both shapes, AuditEvent context, both halves, mandatory at maximum with interval 1); PROTOCOL §6.6.

import { toHex } from '../../../encoding/index.ts';
import { type HashAlg, isPrefixedHashOf, prefixedHash } from '../../../hash/index.ts';
import { protocolMerkleRootOfDigests } from '../../../merkle/index.ts';
import { contextString } from '../../../profile.ts';
import { describe, type JsonRecord, prop, propRecord } from '../../json.ts';
import { evaluateComposite } from '../composite.ts';
import type { CheckpointView, V2Context } from '../context.ts';
import { compositeEnvironment, record } from '../signatures.ts';

const CHECK = 'checkpoints';
/** Both halves' issues are the checkpoints check's. */
const checkOfHalf = (): typeof CHECK => CHECK;

export interface CheckpointSummary {
  readonly verified: number;
}

function label(cp: CheckpointView, index: number): string {
  const id = prop(cp.value, 'checkpoint_id');
  return typeof id === 'string' ? `checkpoint ${describe(id)}` : `checkpoint[${index}]`;
}

/**
 * A SPEC-shape checkpoint's `audit_state` field against the digest computed over its first `count`
 * entries; the digest's text is written only for a mismatch's message.
 */
function checkStated(
  state: JsonRecord | undefined,
  field: 'primary_merkle_root' | 'secondary_merkle_root' | 'last_primary_hash' | 'last_secondary_hash',
  alg: HashAlg,
  /** The digest's bytes, or its hex when that is already at hand (an entry's own). */
  computed: Uint8Array | string,
  count: number,
  fail: (code: 'MERKLE_ROOT_MISMATCH', message: string) => void,
): void {
  const stated = prop(state, field);
  if (
    typeof computed === 'string'
      ? stated === prefixedHash(alg, computed)
      : isPrefixedHashOf(stated, alg, computed)
  )
    return;
  const hex = typeof computed === 'string' ? computed : toHex(computed);
  fail(
    'MERKLE_ROOT_MISMATCH',
    `audit_state.${field} does not match the first ${count} entries (computed ${prefixedHash(alg, hex)})`,
  );
}

/**
 * Coverage is a gapless run from entry 0: each checkpoint starts where the previous one ended.
 * SDK shape: `event_range` names its first and last entry and the count; SPEC.md shape: cumulative
 * `audit_state.entry_count` with both roots and both last hashes over the first entry_count
 * entries. Per checkpoint at most `checkpointInterval` entries (1 at `maximum`). At `maximum`
 * checkpoints are required and must cover every entry. Ranges are checked before any root is
 * computed, so the work stays O(entries) whatever the checkpoints claim.
 */
export function checkCheckpoints(ctx: V2Context): CheckpointSummary {
  const { ledger } = ctx;
  const settings = ctx.runtime.settings;
  const maximum = ctx.tier.tier === 'maximum';
  const limit = maximum ? 1 : (settings.checkpointInterval ?? Number.POSITIVE_INFINITY);
  const total = ctx.entries.length;
  if (ctx.checkpoints.length === 0) {
    if (maximum) {
      ledger.fail(
        CHECK,
        'SIGNATURE_MISSING',
        'Security tier maximum requires PQ checkpoints covering every audit entry',
      );
    } else {
      ledger.set(CHECK, 'absent');
    }
    return { verified: 0 };
  }

  const env = compositeEnvironment(ctx);
  const context = contextString(ctx.runtime.profile, 'AuditEvent');
  const nonce = prop(ctx.parts.manifest, 'session_nonce');
  const positions = new Map<string, number>();
  ctx.entries.forEach((e, i) => {
    const id = prop(e.value, 'audit_id');
    if (typeof id === 'string' && !positions.has(id)) positions.set(id, i);
  });
  let covered = 0;
  let coverageIntact = true;
  let verified = 0;

  ctx.checkpoints.forEach((cp, index) => {
    const name = label(cp, index);
    let faulty = false;
    const fail = (code: Parameters<typeof ledger.fail>[1], message: string) => {
      faulty = true;
      ledger.fail(CHECK, code, `${name}: ${message}`);
    };

    const outcome = evaluateComposite(env, {
      label: name,
      signature: cp.value['composite_sig'],
      context,
      payload: cp.signedBytes,
      framed: cp.signedFramed,
      mode: 'both',
    });
    record(ctx, outcome, checkOfHalf);

    // With session binding required the session check compares every nonce; otherwise a present
    // checkpoint nonce must still be the manifest's (D6).
    const cpNonce = prop(cp.value, 'session_nonce');
    if (!settings.requireSessionBinding && cpNonce !== undefined && cpNonce !== nonce) {
      fail('SESSION_NONCE_INVALID', `session_nonce ${describe(cpNonce)} is not the manifest's`);
    }

    if (coverageIntact) {
      let end: number | undefined;
      if (cp.shape === 'sdk') {
        const range = propRecord(cp.value, 'event_range');
        const from = positions.get(String(prop(range, 'from_audit_id')));
        const count = prop(range, 'count');
        if (from !== covered) {
          fail(
            'MERKLE_ROOT_MISMATCH',
            `event_range must start at audit entry ${covered} (coverage is gapless from entry 0)`,
          );
        } else if (
          typeof count !== 'number' ||
          !Number.isSafeInteger(count) ||
          count < 1 ||
          from + count > total
        ) {
          fail(
            'MERKLE_ROOT_MISMATCH',
            `event_range.count ${describe(count)} does not fit the ${total} audit entries`,
          );
        } else if (prop(ctx.entries[from + count - 1]!.value, 'audit_id') !== prop(range, 'to_audit_id')) {
          fail(
            'MERKLE_ROOT_MISMATCH',
            `event_range.to_audit_id is not entry ${from + count - 1} (count ${count} from ${describe(prop(range, 'from_audit_id'))})`,
          );
        } else {
          end = from + count;
          const root =
            from === 0 && end === total
              ? ctx.audit.fullRoot('sha256')
              : toHex(protocolMerkleRootOfDigests('sha256', ctx.audit.digests('sha256').slice(from, end)));
          const expected = root === undefined ? undefined : prefixedHash('sha256', root);
          if (prop(cp.value, 'merkle_root') !== expected) {
            fail(
              'MERKLE_ROOT_MISMATCH',
              `merkle_root does not match entries ${from}..${end - 1} (computed ${String(expected)})`,
            );
          }
        }
      } else {
        const state = propRecord(cp.value, 'audit_state');
        const count = prop(state, 'entry_count');
        if (prop(cp.value, 'checkpoint_index') !== index) {
          fail(
            'MERKLE_ROOT_MISMATCH',
            `checkpoint_index ${describe(prop(cp.value, 'checkpoint_index'))} is not its position ${index}`,
          );
        }
        if (typeof count !== 'number' || !Number.isSafeInteger(count) || count <= covered || count > total) {
          fail(
            'MERKLE_ROOT_MISMATCH',
            `audit_state.entry_count ${describe(count)} must grow past ${covered} and not exceed ${total}`,
          );
        } else {
          end = count;
          // The roots' digests against the stated texts without writing them as hex (P133); the last
          // entry's digests are at hand as hex already. Same fields, same order as ever.
          const last = count - 1;
          checkStated(
            state,
            'primary_merkle_root',
            'sha256',
            ctx.audit.prefixRoot('sha256', count),
            count,
            fail,
          );
          checkStated(
            state,
            'secondary_merkle_root',
            'sha3-256',
            ctx.audit.prefixRoot('sha3-256', count),
            count,
            fail,
          );
          checkStated(state, 'last_primary_hash', 'sha256', ctx.entries[last]!.sha256, count, fail);
          checkStated(state, 'last_secondary_hash', 'sha3-256', ctx.sha3Leaves()[last]!, count, fail);
        }
      }
      if (end === undefined) {
        coverageIntact = false;
      } else {
        if (end - covered > limit) {
          fail(
            'POLICY_VIOLATION',
            `covers ${end - covered} audit entries; at most ${limit} per checkpoint at tier ${ctx.tier.tier}`,
          );
        }
        covered = end;
      }
    }
    if (!faulty && outcome.issues.length === 0 && outcome.classical === 'pass' && outcome.pq === 'pass')
      verified++;
  });

  if (maximum && coverageIntact && covered < total) {
    ledger.fail(
      CHECK,
      'SIGNATURE_MISSING',
      `Security tier maximum requires PQ checkpoints over every audit entry; they cover ${covered} of ${total}`,
    );
  }
  ledger.settle(CHECK);
  return { verified };
}
