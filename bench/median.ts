// The middle of a set of timings (the mean of the two middle ones when their number is even; NaN when empty):
// what the benches that alternate sides report, as a shared machine's outliers fall on either side.
export const median = (xs: readonly number[]): number => {
  if (xs.length === 0) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** The `p`th percentile of timings already sorted ascending (the sample at floor(p % of n); NaN when empty). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}
