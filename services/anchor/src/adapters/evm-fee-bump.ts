// EVM fee bumps (P64, the EVM side of P53): a write stuck unmined is replaced by the same call at the same nonce
// with fees raised by at least 12.5 % (what nodes require of a replacement: geth 10 %, others up to 12.5 %) or to
// the chain's current estimate when that is higher, never above ETH_MAX_FEE_GWEI, which also caps a first write (P192).

/** The fee fields of a signed transaction: legacy `gasPrice`, or EIP-1559 `maxFeePerGas` + tip. */
export type EvmFees =
  | { readonly gasPrice: bigint }
  | { readonly maxFeePerGas: bigint; readonly maxPriorityFeePerGas: bigint };

/** What a stored EVM write keeps beside its bytes (batch detail) once it replaced another. */
export interface EvmWriteDetail {
  /** Transaction ids this write replaced, oldest first: any of them may still be the one mined. */
  readonly replaces: readonly string[];
}

/** The ids an EVM write replaced (none for a first write or an old row). */
export function replacedTxIds(detail: unknown): readonly string[] {
  const replaces = (detail as Partial<EvmWriteDetail> | null)?.replaces;
  return Array.isArray(replaces) ? replaces.filter((id): id is string => typeof id === 'string') : [];
}

/** `value` raised by 12.5 %, rounded up, and by at least 1 wei. */
function raised(value: bigint): bigint {
  const next = (value * 9n + 7n) / 8n;
  return next > value ? next : value + 1n;
}

function atLeast(a: bigint, b: bigint | undefined): bigint {
  return b !== undefined && b > a ? b : a;
}

/** The smaller of two bigints (Math.min takes numbers only). */
function atMost(a: bigint, cap: bigint): bigint {
  if (a > cap) return cap;
  return a;
}

/**
 * The fees of a first write as the node quoted them, at most `capWei` (P192): the node's quote is its word, and a
 * faulty or hostile node quoting 1,000,000 gwei would otherwise set what the write pays, up to the wallet's balance.
 * The tip never exceeds the fee cap (a node refuses such a transaction).
 */
export function cappedFees(quoted: EvmFees, capWei: bigint): EvmFees {
  if ('gasPrice' in quoted) return { gasPrice: atMost(quoted.gasPrice, capWei) };
  const maxFeePerGas = atMost(quoted.maxFeePerGas, capWei);
  return { maxFeePerGas, maxPriorityFeePerGas: atMost(quoted.maxPriorityFeePerGas, maxFeePerGas) };
}

/**
 * The fees of the replacement of a write that paid `old`: each field raised by 12.5 % or set to the current
 * estimate when higher (same fee model as the original), with the fee cap at most `capWei`. Undefined when the
 * cap leaves no room for a 12.5 % raise (a node would refuse the replacement; the write keeps waiting).
 */
export function bumpedFees(
  old: EvmFees,
  current: Partial<EvmFees> | undefined,
  capWei: bigint,
): EvmFees | undefined {
  if ('gasPrice' in old) {
    const currentPrice = current !== undefined && 'gasPrice' in current ? current.gasPrice : undefined;
    const gasPrice = atLeast(raised(old.gasPrice), currentPrice);
    const capped = atMost(gasPrice, capWei);
    return capped >= raised(old.gasPrice) ? { gasPrice: capped } : undefined;
  }
  const currentMax = current !== undefined && 'maxFeePerGas' in current ? current.maxFeePerGas : undefined;
  const currentTip =
    current !== undefined && 'maxPriorityFeePerGas' in current ? current.maxPriorityFeePerGas : undefined;
  const wantedMax = atLeast(raised(old.maxFeePerGas), currentMax);
  const maxFeePerGas = atMost(wantedMax, capWei);
  const minimumTip = raised(old.maxPriorityFeePerGas);
  if (maxFeePerGas < raised(old.maxFeePerGas) || maxFeePerGas < minimumTip) return undefined;
  const wantedTip = atLeast(minimumTip, currentTip);
  return { maxFeePerGas, maxPriorityFeePerGas: atMost(wantedTip, maxFeePerGas) };
}
