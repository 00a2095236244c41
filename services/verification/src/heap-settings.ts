// V8 heap settings of the verification service (P99; docs/operations.md, Memory): how far old space
// grows past what a full GC found live (VERIFY_HEAP_GROWING_PERCENT) and the verification threads'
// young generation (VERIFY_WORKER_YOUNG_GENERATION_MB). Both are validated with the rest of the
// configuration (config.ts); this module only applies the first, which cannot wait for the config.
import { setFlagsFromString } from 'node:v8';

export const HEAP_GROWING_VARIABLE = 'VERIFY_HEAP_GROWING_PERCENT';
export const HEAP_GROWING_MAX = 400;
/** Unset VERIFY_HEAP_GROWING_PERCENT (P99). */
export const DEFAULT_HEAP_GROWING_PERCENT = 0;
/** Unset VERIFY_WORKER_YOUNG_GENERATION_MB (P99); 0 leaves the threads the process's young generation. */
export const DEFAULT_WORKER_YOUNG_GENERATION_MB = 0;

/**
 * The value config.ts accepts for VERIFY_HEAP_GROWING_PERCENT (an integer 0–400, 0: V8's own factor),
 * or undefined for anything else: config.ts then refuses it, naming the variable, before the service
 * listens, so a value this reads wrongly can never be the one a running service uses.
 */
export function heapGrowingPercentOf(text: string | undefined, fallback: number): number | undefined {
  if (text === undefined || text === '') return fallback;
  // Number() as the config's schema coerces integers (ajv: `x == +x`, whitespace and 0x… included).
  const value = Number(text);
  return Number.isInteger(value) && value >= 0 && value <= HEAP_GROWING_MAX ? value : undefined;
}

/**
 * Sets V8's --heap-growing-percent for the whole process (the verification threads' isolates too), as
 * the first thing main.ts does: Node refuses the flag in NODE_OPTIONS, and the service's modules fill
 * old space while they load. Returns the percent applied (0: none, V8 keeps its own factor).
 */
export function applyHeapGrowingPercent(env: Readonly<Record<string, string | undefined>>): number {
  const percent = heapGrowingPercentOf(env[HEAP_GROWING_VARIABLE], DEFAULT_HEAP_GROWING_PERCENT);
  if (percent === undefined || percent === 0) return 0;
  setFlagsFromString(`--heap-growing-percent=${percent}`);
  return percent;
}

/**
 * Lets VERIFY_WORKER_YOUNG_GENERATION_MB (the pool's resourceLimits) size the threads' young generation:
 * V8 ignores a thread's maxYoungGenerationSizeMb while --max-semi-space-size is set (NODE_OPTIONS, as the
 * image sets it), and reads the flag only when it creates an isolate. So the flag goes back to V8's
 * default once the main thread's heap has been sized by it, before any thread starts: the main thread
 * keeps its small young generation, the threads get theirs from the pool (P99).
 */
export function releaseSemiSpaceFlagForThreads(): void {
  setFlagsFromString('--max-semi-space-size=0');
}
