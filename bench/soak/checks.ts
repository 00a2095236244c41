// After the load: every acknowledged write is still there (log entries at their index with an inclusion
// proof to the signed checkpoint, anchors confirmed, records readable, revocations in the list). Issue 16 item 5.
import { fromHex, verifyTlogInclusion } from '@proto/core';
import type { Ledger } from './load.ts';
import type { Stack } from './stack.ts';

export interface CheckRow {
  readonly what: string;
  readonly acknowledged: number;
  readonly confirmed: number;
  readonly lost: number;
  readonly note: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function getJson(url: string): Promise<{ status: number; json: Record<string, unknown> }> {
  for (let attempt = 0; ; attempt++) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
      return { status: response.status, json: (await response.json()) as Record<string, unknown> };
    } catch (error) {
      if (attempt >= 5) throw error;
      await sleep(500);
    }
  }
}

/** Runs `check` over `items` with a few requests in flight; returns the items that failed it. */
async function failing<T>(items: T[], check: (item: T) => Promise<boolean>, parallel = 8): Promise<T[]> {
  const bad: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < items.length) {
        const item = items[next++]!;
        if (!(await check(item))) bad.push(item);
      }
    }),
  );
  return bad;
}

async function checkLog(stack: Stack, ledger: Ledger): Promise<CheckRow> {
  const log = stack.url('transparency-log');
  const needed = Math.max(0, ...ledger.logEntries.map((e) => e.index + 1));
  // The checkpointer signs every CHECKPOINT_INTERVAL_MS: wait for a checkpoint covering every entry.
  let signed = (await getJson(`${log}/root/signed`)).json;
  for (let i = 0; i < 60 && (signed['tree_size'] as number) < needed; i++) {
    await sleep(1000);
    signed = (await getJson(`${log}/root/signed`)).json;
  }
  const size = signed['tree_size'] as number;
  const head = { size, root: fromHex(signed['root'] as string) as Uint8Array };
  const lost = await failing(ledger.logEntries, async (entry) => {
    const { status, json } = await getJson(`${log}/proof/${entry.index}?tree_size=${size}`);
    if (status !== 200) return false;
    return verifyTlogInclusion(head, {
      bundleHash: entry.hash,
      index: entry.index,
      proof: json['proof'] as string[],
    }).ok;
  });
  return {
    what: 'log entries (at their index, proof to the signed checkpoint)',
    acknowledged: ledger.logEntries.length,
    confirmed: ledger.logEntries.length - lost.length,
    lost: lost.length,
    note: `checkpoint tree_size ${size}`,
  };
}

async function checkAnchors(stack: Stack, ledger: Ledger, waitMs: number): Promise<CheckRow> {
  const anchor = stack.url('anchor');
  let pending = [...ledger.anchors];
  let missing: string[] = [];
  const last = new Map<string, unknown>();
  const deadline = Date.now() + waitMs;
  // Receipts turn confirmed once their batch is in the log: poll until all are, or the wait is over.
  while (pending.length > 0) {
    missing = [];
    pending = await failing(pending, async (hash) => {
      const { status, json } = await getJson(`${anchor}/anchor/${hash}`);
      if (status === 404) missing.push(hash);
      const receipt = json['anchor_receipt'] as Record<string, unknown> | undefined;
      last.set(hash, receipt?.['status'] ?? status);
      return receipt?.['status'] === 'confirmed';
    });
    if (pending.length === 0 || Date.now() > deadline) break;
    await sleep(2000);
  }
  return {
    what: 'anchors (receipt confirmed in the log)',
    acknowledged: ledger.anchors.length,
    confirmed: ledger.anchors.length - pending.length,
    lost: pending.length,
    note:
      pending.length === 0
        ? ''
        : `${missing.length} unknown, ${pending.length - missing.length} not confirmed (${pending
            .slice(0, 5)
            .map((hash) => `${hash.slice(0, 19)}… ${String(last.get(hash))}`)
            .join(', ')})`,
  };
}

async function checkRecords(stack: Stack, ledger: Ledger): Promise<CheckRow> {
  const verification = stack.url('verification');
  const lost = await failing(ledger.records, async (id) => {
    const { status, json } = await getJson(`${verification}/v2/dispute/record/${encodeURIComponent(id)}`);
    return status === 200 && JSON.stringify(json).includes(id);
  });
  return {
    what: 'records (/v2 dispute records readable)',
    acknowledged: ledger.records.length,
    confirmed: ledger.records.length - lost.length,
    lost: lost.length,
    note: '',
  };
}

async function checkRevocations(stack: Stack, ledger: Ledger): Promise<CheckRow> {
  const { json } = await getJson(`${stack.url('revocation')}/.well-known/proto-revocations.json`);
  const listed = new Set(JSON.stringify(json).match(/agent:soak-[0-9a-f]{16}/g) ?? []);
  const lost = ledger.revocations.filter((agent) => !listed.has(agent));
  return {
    what: 'revocations (in the published list)',
    acknowledged: ledger.revocations.length,
    confirmed: ledger.revocations.length - lost.length,
    lost: lost.length,
    note: `list_number ${String(json['list_number'] ?? (json['payload'] as Record<string, unknown>)?.['list_number'])}`,
  };
}

export async function checkWrites(stack: Stack, ledger: Ledger, anchorWaitMs: number): Promise<CheckRow[]> {
  return [
    await checkLog(stack, ledger),
    await checkAnchors(stack, ledger, anchorWaitMs),
    await checkRecords(stack, ledger),
    await checkRevocations(stack, ledger),
  ];
}
