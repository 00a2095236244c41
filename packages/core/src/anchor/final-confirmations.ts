// How deep an anchor must be before a reorganisation is no longer expected to undo it, per chain (P462, after P393).
// One table for the verification service's anchor cache (ANCHOR_VERIFY_CACHE_FINAL_CONFIRMATIONS) and the log's
// watch of its confirmed root anchors (ROOT_ANCHOR_FINAL_CONFIRMATIONS): a chain's name first, then the receipt's
// kind (`evm`, `bitcoin`), then the default. Ethereum's 64 is about two epochs, past finality; a Bitcoin reorganisation
// deeper than 6 blocks is not expected (the usual depth; Bitcoin has no finality to point at). Other EVM chains
// differ (their finality is the operator's to look up): name them.
import type { AnchorReceiptKind } from './receipt.ts';

export interface FinalConfirmations {
  /** Per chain name (a receipt's `chain`) or receipt kind (`evm`, `bitcoin`, `log`). */
  readonly byName: Readonly<Record<string, number>>;
  /** For a chain neither named nor of a named kind. */
  readonly fallback: number;
}

/** The documented default: `evm=64,bitcoin=6`, and 64 for anything else (P393's value for every chain). */
export const DEFAULT_FINAL_CONFIRMATIONS_TEXT = 'evm=64,bitcoin=6';
const DEFAULT_FALLBACK = 64;
const NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const COUNT = /^[1-9]\d{0,8}$/;

/**
 * Reads `64` (every chain) or comma-separated `<chain or kind>=<n>` entries, with at most one bare `<n>` for the
 * chains not named (else 64). Throws an Error naming the entry at fault: the caller turns it into its ConfigError.
 */
export function parseFinalConfirmations(text: string): FinalConfirmations {
  const byName: Record<string, number> = {};
  let fallback: number | undefined;
  const entries = text.split(',').map((entry) => entry.trim());
  if (entries.every((entry) => entry === '')) throw new Error('names no confirmations');
  for (const entry of entries) {
    const [name, count, extra] = entry.split('=').map((part) => part.trim());
    if (extra !== undefined) throw new Error(`"${entry}" is not <chain>=<confirmations>`);
    if (count === undefined) {
      if (name === undefined || !COUNT.test(name)) throw new Error(`"${entry}" is not a positive integer`);
      if (fallback !== undefined) throw new Error('gives the default for every chain twice');
      fallback = Number(name);
      continue;
    }
    if (name === undefined || !NAME.test(name)) throw new Error(`"${name ?? ''}" is not a chain name`);
    if (!COUNT.test(count)) throw new Error(`"${entry}": the confirmations are not a positive integer`);
    if (Object.hasOwn(byName, name)) throw new Error(`names ${name} twice`);
    byName[name] = Number(count);
  }
  return { byName, fallback: fallback ?? DEFAULT_FALLBACK };
}

export const DEFAULT_FINAL_CONFIRMATIONS: FinalConfirmations = parseFinalConfirmations(
  DEFAULT_FINAL_CONFIRMATIONS_TEXT,
);

/** The confirmations past which an anchor on `chain` (of receipt kind `kind`) is taken as final. */
export function finalConfirmationsFor(
  table: FinalConfirmations,
  chain: string | undefined,
  kind: AnchorReceiptKind | undefined,
): number {
  if (chain !== undefined && Object.hasOwn(table.byName, chain)) return table.byName[chain] as number;
  if (kind !== undefined && Object.hasOwn(table.byName, kind)) return table.byName[kind] as number;
  return table.fallback;
}
