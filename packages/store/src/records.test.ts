// Tests of the /v2 record repository on every dialect: put outcomes, reads, races, exact JSON round trips.
// Covers D14 (idempotent re-post, conflict on other content) and the "keep the record as received" rule.
import { createHash } from 'node:crypto';
import { canonicalizeV2 } from '@proto/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from './store.ts';
import { createStoreTarget, dialectsUnderTest, type StoreTarget, steppingClock } from './testing.ts';

/** The expected content id, computed apart from the repository: sha256 of core's canonical text. */
function contentHash(value: unknown): string {
  const text = canonicalizeV2(value);
  if (!text.ok) throw new Error(text.error.message);
  return `sha256:${createHash('sha256').update(text.value, 'utf8').digest('hex')}`;
}

describe.each(dialectsUnderTest())('records on %s', (dialect) => {
  let target: StoreTarget;
  let store: Store;

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'records');
    store = await target.open({ clock: steppingClock() });
  });
  afterAll(async () => {
    await target.cleanup();
  });

  it('P297: a panel signature counts one arbitrator per key and one key per arbitrator', async () => {
    const base = { disputeId: 'dsp-panel', payloadHash: 'sha256:aa' };
    expect(await store.records.addPanelSignature({ ...base, arbitratorId: 'arb-a', kid: 'k1' })).toBe(true);
    // The same arbitrator with another key, and the same key for another arbitrator, add nothing.
    expect(await store.records.addPanelSignature({ ...base, arbitratorId: 'arb-a', kid: 'k2' })).toBe(false);
    expect(await store.records.addPanelSignature({ ...base, arbitratorId: 'arb-b', kid: 'k1' })).toBe(false);
    expect(await store.records.addPanelSignature({ ...base, arbitratorId: 'arb-b', kid: 'k2' })).toBe(true);
    // Another payload of the same dispute is counted apart.
    expect(
      await store.records.addPanelSignature({
        ...base,
        payloadHash: 'sha256:bb',
        arbitratorId: 'arb-a',
        kid: 'k1',
      }),
    ).toBe(true);
    const counted = await store.records.panelSignatures('dsp-panel', 'sha256:aa');
    expect(counted.map((row) => [row.arbitratorId, row.kid]).sort()).toEqual([
      ['arb-a', 'k1'],
      ['arb-b', 'k2'],
    ]);
  });

  it('P443: a counted key is re-seated on another arbitrator of that payload only', async () => {
    const base = { disputeId: 'dsp-reseat', payloadHash: 'sha256:aa' };
    expect(await store.records.addPanelSignature({ ...base, arbitratorId: 'arb-b', kid: 'k1' })).toBe(true);
    expect(
      await store.records.addPanelSignature({
        ...base,
        payloadHash: 'sha256:bb',
        arbitratorId: 'arb-b',
        kid: 'k1',
      }),
    ).toBe(true);
    await store.records.movePanelSignature({ ...base, arbitratorId: 'arb-a', kid: 'k1' });
    // The seat it left is free for another key; the other payload's row is untouched.
    expect(await store.records.addPanelSignature({ ...base, arbitratorId: 'arb-b', kid: 'k2' })).toBe(true);
    const seats = async (payloadHash: string) =>
      (await store.records.panelSignatures('dsp-reseat', payloadHash))
        .map((row) => [row.arbitratorId, row.kid])
        .sort();
    expect(await seats('sha256:aa')).toEqual([
      ['arb-a', 'k1'],
      ['arb-b', 'k2'],
    ]);
    expect(await seats('sha256:bb')).toEqual([['arb-b', 'k1']]);
  });

  it('P446: replace swaps the stored content only while it is the expected one, keeping its place and time', async () => {
    const first = { declaration_id: 'decl-replace', sig: { pq: null } };
    const second = { declaration_id: 'decl-replace', sig: { pq: 'both' } };
    const put = await store.records.put('rights_declaration', 'decl-replace', first, { agentId: 'agent-r' });
    const replaced = await store.records.replace(
      'rights_declaration',
      'decl-replace',
      put.stored.content_hash,
      second,
    );
    expect(replaced).toMatchObject({
      record: second,
      content_hash: contentHash(second),
      seq: put.stored.seq,
      stored_at: put.stored.stored_at,
      agent_id: 'agent-r',
    });
    // The expected content is gone now: a second replacement by it (a racing one) changes nothing.
    const stale = await store.records.replace(
      'rights_declaration',
      'decl-replace',
      put.stored.content_hash,
      first,
    );
    expect(stale).toBeUndefined();
    expect((await store.records.get('rights_declaration', 'decl-replace'))?.record).toEqual(second);
    expect((await store.records.put('rights_declaration', 'decl-replace', second)).status).toBe('identical');
    expect(
      await store.records.replace('rights_declaration', 'no-such-id', contentHash(first), second),
    ).toBeUndefined();
  });

  it('creates a record, then answers identical for the same content and conflict for other content', async () => {
    const record = { dispute_id: 'dsp-1', dispute_type: 'resource', parties: ['agent-a', 'agent-b'] };
    const created = await store.records.put('dispute_record', 'dsp-1', record);
    expect(created.status).toBe('created');
    expect(created.stored).toMatchObject({ kind: 'dispute_record', id: 'dsp-1', record });
    expect(created.stored.content_hash).toBe(contentHash(record));
    expect(created.stored.json).toBe(JSON.stringify(record));
    expect(contentHash({ b: true, a: 1 })).toBe(
      `sha256:${createHash('sha256').update('{"a":1,"b":true}').digest('hex')}`,
    );

    // Same content in another key order is the same record: nothing is written, stored_at does not move.
    const again = await store.records.put('dispute_record', 'dsp-1', {
      parties: ['agent-a', 'agent-b'],
      dispute_type: 'resource',
      dispute_id: 'dsp-1',
    });
    expect(again.status).toBe('identical');
    expect(again.stored).toEqual(created.stored);

    const other = await store.records.put('dispute_record', 'dsp-1', { ...record, dispute_type: 'policy' });
    expect(other.status).toBe('conflict');
    expect(other.stored).toEqual(created.stored);

    expect(await store.records.get('dispute_record', 'dsp-1')).toEqual(created.stored);
    expect(await store.records.count('dispute_record')).toBe(1);
  });

  it('keeps kinds apart: one id may exist under several kinds', async () => {
    const a = await store.records.put('objection_record', 'shared-id', { n: 1 });
    const b = await store.records.put('interaction_record', 'shared-id', { n: 2 });
    expect([a.status, b.status]).toEqual(['created', 'created']);
    expect(b.stored.seq).toBeGreaterThan(a.stored.seq);
    expect((await store.records.get('objection_record', 'shared-id'))?.record).toEqual({ n: 1 });
    expect((await store.records.get('interaction_record', 'shared-id'))?.record).toEqual({ n: 2 });
  });

  it('answers undefined for unknown or malformed ids and zero for an unknown kind', async () => {
    expect(await store.records.get('dispute_record', 'no-such-id')).toBeUndefined();
    expect(await store.records.get('dispute_record', 'bad id/with spaces')).toBeUndefined();
    expect(await store.records.latestForAgent('vitality_report', 'nobody')).toBeUndefined();
    expect(await store.records.count('never_used_kind')).toBe(0);
  });

  it('refuses ids, kinds and values it could not serve back, and stores nothing', async () => {
    await expect(store.records.put('dispute_record', 'has space', {})).rejects.toThrow(TypeError);
    await expect(store.records.put('dispute_record', 'x'.repeat(257), {})).rejects.toThrow(TypeError);
    await expect(store.records.put('Bad-Kind', 'ok-id', {})).rejects.toThrow(TypeError);
    await expect(store.records.put('dispute_record', 'ok-id', {}, { agentId: 'a b' })).rejects.toThrow(
      TypeError,
    );
    await expect(store.records.put('dispute_record', 'nan-id', { score: Number.NaN })).rejects.toThrow(
      TypeError,
    );
    expect(await store.records.get('dispute_record', 'nan-id')).toBeUndefined();
  });

  it('finds the latest record of a kind for an agent', async () => {
    for (const n of [1, 2, 3]) {
      await store.records.put(
        'vitality_report',
        `vit-a-${n}`,
        { agent_id: 'agent-lat', n },
        { agentId: 'agent-lat' },
      );
    }
    await store.records.put(
      'vitality_report',
      'vit-b-1',
      { agent_id: 'agent-other' },
      { agentId: 'agent-other' },
    );
    await store.records.put('principal_mirror', 'mir-1', { agent_id: 'agent-lat' }, { agentId: 'agent-lat' });

    const latest = await store.records.latestForAgent('vitality_report', 'agent-lat');
    expect(latest?.id).toBe('vit-a-3');
    expect(latest?.agent_id).toBe('agent-lat');
    expect((await store.records.latestForAgent('vitality_report', 'agent-other'))?.id).toBe('vit-b-1');
    expect((await store.records.latestForAgent('principal_mirror', 'agent-lat'))?.id).toBe('mir-1');
  });

  it('gives seq numbers that only grow and stamps stored_at from the clock', async () => {
    const first = await store.records.put('rights_declaration', 'rd-1', { v: 1 });
    const second = await store.records.put('rights_declaration', 'rd-2', { v: 2 });
    expect(second.stored.seq).toBeGreaterThan(first.stored.seq);
    expect(Date.parse(second.stored.stored_at)).toBeGreaterThan(Date.parse(first.stored.stored_at));
    expect(first.stored.stored_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('lets exactly one of 20 racing puts of one id create it; the others see conflict', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.records.put('delegation_mandate', 'mandate-race', { attempt: i }),
      ),
    );
    const created = results.filter((r) => r.status === 'created');
    expect(created).toHaveLength(1);
    expect(results.filter((r) => r.status === 'conflict')).toHaveLength(19);
    for (const r of results) expect(r.stored).toEqual(created[0]?.stored);
    expect(await store.records.count('delegation_mandate')).toBe(1);
  });

  it('lets exactly one of 20 racing identical puts create it; the others see identical', async () => {
    const record = { advisory: 'same', significance_score: 500 };
    const results = await Promise.all(
      Array.from({ length: 20 }, () => store.records.put('advisory_declaration', 'adv-race', record)),
    );
    expect(results.filter((r) => r.status === 'created')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'identical')).toHaveLength(19);
    expect(await store.records.count('advisory_declaration')).toBe(1);
  });

  it('returns records exactly as received: unicode, escapes, key order, deep nesting', async () => {
    let deep: unknown = { leaf: 'bottom' };
    // As deep as dcp-jcs-v1 allows (64 levels, D2): the content id is core's canonical hash.
    for (let i = 0; i < 60; i++) deep = i % 2 === 0 ? [i, deep] : { [`level_${i}`]: deep, i };
    const record = {
      zeta: 'last key first',
      text: 'héllo wörld — 日本語 עברית 😀👩🏽‍💻 e\u0301',
      escapes: 'quote " backslash \\ newline \n tab \t nul \u0000 ls \u2028 ps \u2029 del \u007f',
      numbers: [0, -1, 1000, 9007199254740991, -9007199254740991],
      empty: { '': '', obj: {}, arr: [] },
      literals: [true, false, null],
      deep,
      big: 'x'.repeat(200_000),
      alpha: 'first key last',
    };
    // Parsed from text, as a request body is: JSON.parse makes "__proto__" an ordinary own member.
    const sent: unknown = JSON.parse(`{"__proto__":"not a prototype",${JSON.stringify(record).slice(1)}`);
    expect(Object.keys(sent as object)[0]).toBe('__proto__');
    const { stored } = await store.records.put('jurisprudence_bundle', 'juris-exact', sent);
    const read = await store.records.get('jurisprudence_bundle', 'juris-exact');
    expect(read?.json).toBe(JSON.stringify(sent));
    expect(read?.record).toEqual(sent);
    expect(Object.keys(read?.record as object)).toEqual(Object.keys(sent as object));
    expect(read?.content_hash).toBe(contentHash(sent));
    expect(read).toEqual(stored);
  });

  it('commits several repository calls as one transaction, or none of them', async () => {
    await store.lifecycle.commission('agent-tx');
    await expect(
      store.transaction(async (tx) => {
        const cas = await tx.lifecycle.appendVitality('agent-tx', 'sha256:r1', 'GENESIS');
        expect(cas.ok).toBe(true);
        await tx.records.put('vitality_report', 'vit-tx-1', { report: 1 }, { agentId: 'agent-tx' });
        throw new Error('abandon');
      }),
    ).rejects.toThrow('abandon');
    expect((await store.lifecycle.get('agent-tx'))?.last_vitality_hash).toBeNull();
    expect(await store.records.get('vitality_report', 'vit-tx-1')).toBeUndefined();

    await store.transaction(async (tx) => {
      await tx.lifecycle.appendVitality('agent-tx', 'sha256:r1', 'GENESIS');
      await tx.records.put('vitality_report', 'vit-tx-1', { report: 1 }, { agentId: 'agent-tx' });
    });
    expect((await store.lifecycle.get('agent-tx'))?.last_vitality_hash).toBe('sha256:r1');
    expect((await store.records.latestForAgent('vitality_report', 'agent-tx'))?.id).toBe('vit-tx-1');
  });
});

describe('records content ids use core canonical JSON (dcp-jcs-v1)', () => {
  it('refuses a record that has no canonical form instead of hashing something else', async () => {
    const [dialect] = dialectsUnderTest();
    const target = await createStoreTarget(dialect ?? 'sqlite', 'records-canonical');
    const store = await target.open({ clock: steppingClock() });
    try {
      await expect(store.records.put('dispute_record', 'frac-1', { amount: 1.5 })).rejects.toThrow(TypeError);
      await expect(store.records.put('dispute_record', 'unsafe-1', { n: 2 ** 53 })).rejects.toThrow(
        TypeError,
      );
      await expect(store.records.put('dispute_record', 'lone-1', { s: '\ud800' })).rejects.toThrow(TypeError);
      let deep: unknown = 'bottom';
      for (let i = 0; i < 100; i++) deep = [deep];
      await expect(store.records.put('dispute_record', 'deep-1', { deep })).rejects.toThrow(TypeError);
      expect(await store.records.get('dispute_record', 'frac-1')).toBeUndefined();
    } finally {
      await target.cleanup();
    }
  });
});
