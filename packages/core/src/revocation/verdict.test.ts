// The verifier's revocation policy: revoked fails everywhere, unknown status fails closed at elevated+.
// DECISIONS D20 (fail closed at elevated/maximum, warning below; revocations are permanent).
import { describe, expect, it } from 'vitest';
import { decideRevocation } from './verdict.ts';

const LIST = {
  list_number: 4,
  entries: [
    {
      agent_id: 'agent:gone-1',
      revoked_at: '2026-01-01T00:00:00.000Z',
      reason_hash: `sha256:${'0'.repeat(64)}`,
    },
  ],
};

describe('decideRevocation', () => {
  it('fails with AGENT_REVOKED for a listed agent or signer at every tier, even from a stale list', () => {
    for (const tier of ['routine', 'standard', 'elevated', 'maximum'] as const) {
      const d = decideRevocation({
        tier,
        ids: ['agent:ok-1', 'agent:gone-1'],
        list: LIST,
        problem: { reason: 'stale', message: 'stale' },
      });
      expect([d.status, d.error?.code, d.retryable]).toEqual(['fail', 'AGENT_REVOKED', false]);
    }
  });

  it('passes an unlisted agent when the list is fresh', () => {
    expect(decideRevocation({ tier: 'maximum', ids: ['agent:ok-1'], list: LIST })).toEqual({
      status: 'pass',
      retryable: false,
      listNumber: 4,
    });
  });

  it('fails closed (CIRCUIT_OPEN, retryable) at elevated and maximum when the status is unknown', () => {
    for (const tier of ['elevated', 'maximum'] as const) {
      for (const reason of ['unavailable', 'stale', 'rollback', 'bad_signature', 'untrusted_key'] as const) {
        const d = decideRevocation({ tier, ids: ['agent:ok-1'], problem: { reason, message: reason } });
        expect([d.status, d.error?.code, d.retryable, d.reason]).toEqual([
          'fail',
          'CIRCUIT_OPEN',
          true,
          reason,
        ]);
      }
    }
    expect(decideRevocation({ tier: 'elevated', ids: ['agent:ok-1'] }).status).toBe('fail');
  });

  it('only warns below elevated', () => {
    for (const tier of ['routine', 'standard'] as const) {
      const d = decideRevocation({
        tier,
        ids: ['agent:ok-1'],
        problem: { reason: 'stale', message: 'list 4 is stale' },
      });
      expect(d.status).toBe('skipped');
      expect(d.warning).toMatch(/list 4 is stale/);
      expect(d.error).toBeUndefined();
    }
  });

  it('skips a jurisdiction without a configured source unless told to fail closed', () => {
    const problem = { reason: 'no_source' as const, message: 'no source for XX' };
    expect(decideRevocation({ tier: 'maximum', ids: ['a'], problem }).status).toBe('skipped');
    expect(
      decideRevocation({ tier: 'maximum', ids: ['a'], problem, failClosedWithoutSource: true }).status,
    ).toBe('fail');
  });
});
