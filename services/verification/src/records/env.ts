// The /v2 records' own variables, validated at boot as part of the verification service's configuration.
// D17 (10,000 records per kind, 100 POSTs per minute per IP), docs/architecture.md §4 (retention policy).
import type { EnvProperties } from '@proto/service-kit';
import { DEFAULT_RATE_LIMIT_PER_MINUTE } from './rate-limit.ts';

export const RECORD_SETTINGS_ENV = {
  STORE_MAX_ENTRIES: {
    type: 'integer',
    minimum: 1,
    default: 10_000,
    description: 'Records kept per /v2 record kind, oldest evicted first (D17)',
  },
  V2_RATE_LIMIT_PER_MINUTE: {
    type: 'integer',
    minimum: 0,
    default: DEFAULT_RATE_LIMIT_PER_MINUTE,
    description: 'POSTs per minute per client IP across all /v2 routes (0: no limit; D17)',
  },
} as const satisfies EnvProperties;
