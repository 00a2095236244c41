// P545: the verification service's caches, queue, response and batch sizes, and its timers had a minimum only. A
// timer past Node's range (2^31 - 1 ms) fires after 1 ms (an idle worker is ended at once; a timeout never holds),
// and a cache, queue or size cap set in the wrong unit lets one process take all memory before any limit holds. Each
// such value now stops the boot with a ConfigError naming the variable and its bound; the bounds themselves load. The
// real configuration loader, as `serve.ts` calls it.
import { configBoundFaults } from '@proto/service-kit/testing';
import { describe, expect, it } from 'vitest';
import { loadVerificationConfig } from '../../src/config.ts';

const BOUNDS: readonly (readonly [string, number])[] = [
  ['VERIFICATION_CACHE_MAX_ENTRIES', 1_000_000],
  ['VERIFICATION_CACHE_MAX_BYTES', 1_073_741_824],
  ['VERIFY_WORKER_IDLE_MS', 3_600_000],
  ['VERIFY_QUEUE_MAX', 65_536],
  ['VERIFY_BATCH_MAX_BYTES', 268_435_456],
  ['ANCHOR_VERIFY_TIMEOUT_MS', 300_000],
  ['ANCHOR_VERIFY_MAX_RESPONSE_BYTES', 268_435_456],
  ['ANCHOR_VERIFY_CACHE_MAX_ENTRIES', 1_000_000],
  ['ANCHOR_VERIFY_CACHE_TTL_MS', 604_800_000],
  ['ANCHOR_VERIFY_CACHE_RETRY_TTL_MS', 3_600_000],
  // P566: unsettled disputes one filer may hold its respondents' keys for.
  ['RECORDS_DISPUTE_HOLDS_PER_FILER', 1_000_000],
  // P606: how long an unsettled dispute holds its respondent (ten years).
  ['RECORDS_DISPUTE_HOLD_MAX_AGE_SECONDS', 315_360_000],
];

describe('P545: unrealistic verification cache, queue, size and timing values stop the boot, naming the variable', () => {
  it('past each bound (bound + 1, 1e12) a ConfigError names the variable and its bound; the bound loads', () => {
    expect(configBoundFaults(loadVerificationConfig, BOUNDS)).toEqual([]);
  });
});
