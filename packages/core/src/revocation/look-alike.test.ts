// P516: core's one wording for a list entry that reads as an id the list does not revoke (POST /verify, /verify/batch,
// `proto verify --revocation-list`, `proto revocation verify --agent`).
import { describe, expect, it } from 'vitest';
import { bundleReadAlikeRevocationWarnings, readAlikeRevocationWarnings } from './look-alike.ts';
import type { RevocationEntry } from './types.ts';

const entry = (agent_id: string) => ({ agent_id, revoked_at: '2026-01-01T00:00:00Z' }) as RevocationEntry;
const list = (...ids: string[]) => ({ entries: ids.map(entry) });

describe('readAlikeRevocationWarnings', () => {
  it('names an entry that reads as the id (ASCII 0/O, 1/I/l, m/rn; Cyrillic; invisible characters)', () => {
    for (const [id, listed] of [
      ['agent-10', 'agent-lO'],
      ['agent-m1', 'agent-rnI'],
      ['agent-alpha', 'agent-\u0430lpha'],
      ['agent-alpha', 'agent-al\u200bpha'],
    ] as const) {
      const warnings = readAlikeRevocationWarnings(list('agent-other', listed), id);
      expect(warnings, id).toHaveLength(1);
      expect(warnings[0]).toMatch(
        /^agent .* is not in the list, but entries\[1\]\.agent_id ".*" reads the same: /,
      );
    }
  });

  it('says nothing for an id the list revokes, a list with no look-alike, or an empty list', () => {
    expect(readAlikeRevocationWarnings(list('agent-1', 'agent-l'), 'agent-1')).toEqual([]);
    expect(readAlikeRevocationWarnings(list('agent-2', 'agent-3'), 'agent-1')).toEqual([]);
    expect(readAlikeRevocationWarnings(list(), 'agent-1')).toEqual([]);
  });

  it('names five entries and counts the rest', () => {
    const warnings = readAlikeRevocationWarnings(
      list('agent-l1', 'agent-I1', 'agent-lI', 'agent-II', 'agent-|1', 'agent-1|', 'agent-||'),
      'agent-11',
    );
    expect(warnings).toHaveLength(6);
    expect(warnings[5]).toBe('2 more entries read as agent-11');
  });

  it('reads a list it was asked about before with the same answer (the index is kept per entries array)', () => {
    const l = list('agent-O0');
    expect(readAlikeRevocationWarnings(l, 'agent-00')).toEqual(readAlikeRevocationWarnings(l, 'agent-00'));
    expect(readAlikeRevocationWarnings(l, 'agent-OO')).toHaveLength(1);
  });
});

describe('bundleReadAlikeRevocationWarnings (P572)', () => {
  it("names an entry reading as a signer's kid, after the agent's, each kid once", () => {
    const kid = '0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f';
    const warnings = bundleReadAlikeRevocationWarnings(list('agent-lO', `Oc1d${kid.slice(4)}`), {
      agentId: 'agent-10',
      signerKids: [kid, kid],
    });
    expect(warnings).toEqual([
      'agent agent-10 is not in the list, but entries[0].agent_id "agent-lO" reads the same: check which agent the issuer meant (look-alike id)',
      `signer kid ${kid} is not in the list, but entries[1].agent_id "Oc1d${kid.slice(4)}" reads the same: check which key the issuer meant (look-alike id)`,
    ]);
  });

  it('says nothing for kids no entry reads as, and looks up signers of a bundle naming no agent', () => {
    expect(bundleReadAlikeRevocationWarnings(list('agent-2'), { signerKids: ['abc1'] })).toEqual([]);
    expect(bundleReadAlikeRevocationWarnings(list('abcl'), { signerKids: ['abc1'] })).toHaveLength(1);
  });
});
