// The store's revocation repository on every dialect: atomic revoke + issue, exactly-once under races,
// rollback of a failed signing, list retention and key registration. DECISIONS D20, D21; docs/architecture.md §4.
import type { ListBuilder, Store } from '@proto/store';
import { KyselyRevocationRepository } from '@proto/store';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const HASH = `sha256:${'ab'.repeat(32)}`;
const build: ListBuilder = ({ listNumber, entries }) => ({
  list_json: JSON.stringify({ list_number: listNumber, entries: entries.map((e) => e.agent_id) }),
  issued_at: new Date().toISOString(),
  next_update: new Date(Date.now() + 86_400_000).toISOString(),
});
const entry = (agentId: string) => ({
  agent_id: agentId,
  revoked_at: '2026-01-01T00:00:00.000Z',
  reason_hash: HASH,
});

describe.each(dialectsUnderTest())('revocation repository on %s', (dialect) => {
  let target: StoreTarget;
  let store: Store;
  let twin: Store;

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'revocation-repo');
    store = await target.open();
    twin = await target.open();
  });
  afterAll(async () => {
    await target.cleanup();
  });

  it('records a revocation and issues the list carrying it in one step; a repeat changes nothing', async () => {
    const first = await store.revocation.revoke('AA', entry('agent:one-1'), build);
    expect(first.status).toBe('created');
    if (first.status !== 'created') return;
    expect(first.list).toMatchObject({ list_number: 1, entry_count: 1 });
    expect(first.entry.first_list_number).toBe(1);
    const again = await store.revocation.revoke(
      'AA',
      { ...entry('agent:one-1'), reason_hash: `sha256:${'cd'.repeat(32)}` },
      build,
    );
    expect(again).toEqual({ status: 'exists', entry: first.entry });
    expect((await store.revocation.latestList('AA'))?.list_number).toBe(1);
    expect(await store.revocation.countEntries('AA')).toBe(1);
    // Jurisdictions are independent.
    expect(await store.revocation.latestList('BB')).toBeUndefined();
  });

  it('revokes the same agent exactly once when replicas race', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 ? twin : store).revocation.revoke('CC', entry('agent:raced-1'), build),
      ),
    );
    expect(results.filter((r) => r.status === 'created')).toHaveLength(1);
    expect((await store.revocation.latestList('CC'))?.list_number).toBe(1);
  });

  it('uses up no list number when signing fails (the transaction rolls back)', async () => {
    await store.revocation.issueList('DD', build);
    const failing: ListBuilder = () => {
      throw new Error('signer unavailable');
    };
    await expect(store.revocation.revoke('DD', entry('agent:lost-1'), failing)).rejects.toThrow(
      'signer unavailable',
    );
    expect(await store.revocation.getEntry('DD', 'agent:lost-1')).toBeUndefined();
    const next = await store.revocation.issueList('DD', build);
    expect(next.issued && next.list.list_number).toBe(2);
  });

  it('issues only when onlyIf agrees, under the lock', async () => {
    const first = await store.revocation.issueList('EE', build, { onlyIf: (latest) => latest === undefined });
    expect(first.issued).toBe(true);
    const racing = await Promise.all(
      [store, twin].map((s) =>
        s.revocation.issueList('EE', build, { onlyIf: (latest) => (latest?.list_number ?? 0) < 2 }),
      ),
    );
    expect(racing.filter((r) => r.issued)).toHaveLength(1);
    expect((await store.revocation.latestList('EE'))?.list_number).toBe(2);
  });

  it('keeps the latest lists only, but every entry', async () => {
    const repo = new KyselyRevocationRepository(store.db, { dialect, clock: () => new Date(), keepLists: 3 });
    for (let i = 0; i < 6; i++) await repo.revoke('FF', entry(`agent:kept-${i}`), build);
    expect(await repo.getList('FF', 3)).toBeUndefined();
    expect((await repo.getList('FF', 4))?.entry_count).toBe(4);
    expect(JSON.parse((await repo.latestList('FF'))?.list_json ?? '{}').entries).toHaveLength(6);
    expect((await repo.entries('FF')).map((e) => e.agent_id)).toEqual(
      Array.from({ length: 6 }, (_, i) => `agent:kept-${i}`),
    );
  });

  it('registers signing keys once, keeping the first use time, and logs attestations', async () => {
    const a = await store.revocation.registerKey(
      'GG',
      'attestation',
      { key_id: 'k1', public_key_b64: 'AAAA' },
      new Date('2026-01-01T00:00:00Z'),
    );
    const b = await twin.revocation.registerKey(
      'GG',
      'attestation',
      { key_id: 'k1', public_key_b64: 'AAAA' },
      new Date('2027-01-01T00:00:00Z'),
    );
    expect(b).toEqual(a);
    expect(a.first_used_at).toBe('2026-01-01T00:00:00.000Z');
    expect(await store.revocation.keys('GG', 'attestation')).toHaveLength(1);
    const seq = await store.revocation.recordAttestation({
      jurisdiction: 'GG',
      agent_id: 'agent:att-1',
      rpr_hash: HASH,
      key_id: 'k1',
      attested_at: '2026-01-01T00:00:00.000Z',
      expires_at: null,
      attestation_json: '{}',
    });
    expect(seq).toBeGreaterThan(0);
    expect(await store.revocation.countAttestations('GG', 'agent:att-1')).toBe(1);
  });

  it('P400: issues an attestation only for an agent not revoked, signing under the lock; a failed signing records none', async () => {
    const issuance = (agentId: string) => ({
      jurisdiction: 'II',
      agent_id: agentId,
      rpr_hash: HASH,
      key_id: 'k1',
      attested_at: '2026-01-01T00:00:00.000Z',
      expires_at: null,
      attestation_json: '{}',
    });
    const issued = await store.revocation.issueAttestation('II', 'agent:ii-1', () => issuance('agent:ii-1'));
    expect(issued).toMatchObject({ status: 'issued', issuance: issuance('agent:ii-1') });
    await twin.revocation.revoke('II', entry('agent:ii-1'), build);
    let signed = false;
    const refused = await store.revocation.issueAttestation('II', 'agent:ii-1', () => {
      signed = true;
      return issuance('agent:ii-1');
    });
    expect(refused).toMatchObject({ status: 'revoked', entry: { agent_id: 'agent:ii-1' } });
    expect(signed).toBe(false);
    await expect(
      store.revocation.issueAttestation('II', 'agent:ii-2', () => {
        throw new Error('signer unavailable');
      }),
    ).rejects.toThrow('signer unavailable');
    await expect(
      store.revocation.issueAttestation('II', 'agent:ii-2', () => issuance('agent:ii-3')),
    ).rejects.toThrow(/another jurisdiction or agent/);
    expect(await store.revocation.countAttestations('II')).toBe(1);
  });

  it('joins a caller transaction (store.transaction)', async () => {
    await expect(
      store.transaction(async (tx) => {
        await tx.revocation.revoke('HH', entry('agent:tx-1'), build);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await store.revocation.getEntry('HH', 'agent:tx-1')).toBeUndefined();
    expect(await store.revocation.latestList('HH')).toBeUndefined();
  });
});
