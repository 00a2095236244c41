// The real `proto` process as the end-to-end tests of the CLI run it: the pinned Node on main.ts, stdin closed,
// killed after a limit so that a hang is a failed case and not a stuck suite, with the time it took.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildAnchorBatch, buildSignedBundle, type JsonObject } from '@proto/core';
import { type ProcessRun, runProcess } from '@proto/testing';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));

/** Generous: a loaded machine may take many seconds to start the CLI. */
export const CLI_LIMIT_MS = 60_000;

export interface CliRun extends ProcessRun {
  readonly ms: number;
}

/** Runs `proto …args`; code null when it was still running after `limitMs` and was killed. */
export async function runCli(args: readonly string[], limitMs = CLI_LIMIT_MS): Promise<CliRun> {
  const started = Date.now();
  const run = await runProcess(process.execPath, [MAIN, ...args], { killAfterMs: limitMs });
  return { ...run, ms: Date.now() - started };
}

/**
 * Writes `dir/receipt.json` (or `name`): a pending Ethereum receipt for a one-bundle batch, whose path to its root
 * holds offline, so that only the chain's answers are left to judge. `where` replaces its chain, contract and tx_id
 * (a Bitcoin receipt: chain, network, tx_id).
 */
export function writePendingEthereumReceipt(
  dir: string,
  bundleHash = `sha256:${'ab'.repeat(32)}`,
  where: JsonObject = { chain: 'ethereum', contract: `0x${'12'.repeat(20)}`, tx_id: `0x${'34'.repeat(32)}` },
  name = 'receipt.json',
): {
  readonly receiptFile: string;
  readonly bundleHash: string;
} {
  const tree = buildAnchorBatch([bundleHash]);
  if (!tree.ok) throw new Error(tree.error.message);
  const receiptFile = `${dir}/${name}`;
  writeFileSync(
    receiptFile,
    JSON.stringify({
      ...where,
      bundle_hash: bundleHash,
      status: 'pending',
      batch_root: tree.value.root,
      batch_size: 1,
      leaf_index: 0,
      merkle_path: [],
    }),
  );
  return { receiptFile, bundleHash };
}

/**
 * A standard-tier bundle written to `dir/bundle.json`, with a pending Ethereum receipt (`dir/receipt.json`) and a
 * pending Bitcoin regtest one (`dir/bitcoin-receipt.json`) for it: their paths hold offline, only the chain is asked.
 */
export function bundleWithPendingReceipts(dir: string) {
  const built = buildSignedBundle({ tier: 'standard' });
  const bundleFile = `${dir}/bundle.json`;
  writeFileSync(bundleFile, JSON.stringify(built.signed_bundle));
  const bitcoin = { chain: 'bitcoin', network: 'regtest', tx_id: '34'.repeat(32) };
  return {
    built,
    bundleFile,
    evmReceipt: writePendingEthereumReceipt(dir, built.bundleHash).receiptFile,
    btcReceipt: writePendingEthereumReceipt(dir, built.bundleHash, bitcoin, 'bitcoin-receipt.json')
      .receiptFile,
  };
}

/** A bundle file in `dir` whose principal record and agent keys expire at `expiresAt`, signed as it stands. */
export function bundleFileExpiringAt(dir: string, name: string, expiresAt: string): string {
  const built = buildSignedBundle({
    hooks: {
      payloads: (p) => {
        p.responsible_principal_record['expires_at'] = expiresAt;
        for (const key of p.agent_passport['keys'] as JsonObject[]) key['expires_at'] = expiresAt;
      },
    },
  });
  const file = `${dir}/${name}.json`;
  writeFileSync(file, JSON.stringify(built.signed_bundle));
  return file;
}
