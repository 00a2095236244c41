// The /v2 records' own variables, validated at boot as part of the verification service's configuration.
// D17 (10,000 records per kind, 100 POSTs per minute per IP), docs/architecture.md §4 (retention policy).
import { type EnvProperties, OPERATOR_TOKEN_ENV } from '@proto/service-kit';
import { DEFAULT_DISPUTE_HOLD_MAX_AGE_SECONDS, DEFAULT_DISPUTE_HOLDS_PER_FILER } from './dispute-holds.ts';
import { DEFAULT_RATE_LIMIT_PER_MINUTE } from './rate-limit.ts';
import { WRITE_POLICIES } from './write-authorization.ts';

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
  // Issue 15: who may write a record.
  RECORDS_WRITE_POLICY: {
    type: 'string',
    enum: [...WRITE_POLICIES],
    default: 'signed',
    description:
      'signed: a record POST needs a signature by a key bound to its subject, or the operator token; open: anyone (development)',
  },
  // Issue 15: the records' and key directory's PostgreSQL schema (replicas and tests keep theirs apart).
  DATABASE_SCHEMA: {
    type: 'string',
    pattern: '^[a-z_][a-z0-9_]{0,62}$',
    description:
      'PostgreSQL schema of the /v2 records, key directory and revocation watermarks (default: the server search_path)',
  },
  // P174: the key directory forgets bindings nobody uses.
  KEY_DIRECTORY_PRUNE_AFTER_SECONDS: {
    type: 'integer',
    minimum: 0,
    default: 0,
    description:
      'Delete key bindings that never authorised a /v2 write, are not retired, and no verified bundle proved for this long (0: never; P174)',
  },
  KEY_DIRECTORY_PRUNE_INTERVAL_SECONDS: {
    type: 'integer',
    minimum: 1,
    maximum: 86_400,
    default: 3_600,
    description: 'How often the key directory is pruned and counted (key_directory_bindings)',
  },
  // P410: on by default again; a bundle whose signing kids are not in the in-memory filter costs a hash probe.
  RETIRED_KEY_WARNINGS: {
    type: 'boolean',
    default: true,
    description:
      'Warn when a verified V2 bundle was signed by a kid the key directory has retired (P282); only a bundle whose signing kid is in the in-memory filter of retired kids is looked up in the store (P410)',
  },
  // P470: the filter's size; its fill is proto_retired_kid_filter_fill_ratio (alert RetiredKidFilterSaturated).
  RETIRED_KID_FILTER_BITS_LOG2: {
    type: 'integer',
    minimum: 16,
    maximum: 30,
    default: 20,
    description:
      'Size of the in-memory filter of retired kids, as a power of two of bits (20: 128 KiB, about 1 % false hits at 100 000 retired kids; each step up doubles the memory and the kids it holds at that rate) (P470)',
  },
  RETIRED_KEY_REFRESH_SECONDS: {
    type: 'integer',
    minimum: 1,
    maximum: 3_600,
    default: 10,
    description:
      "How often the filter of retired kids reads the key directory's new retirements: another replica's retirement is warned about here within this (P410)",
  },
  // P241: who may sit on a panel that resolves a dispute (PROTOCOL names no appointment record).
  RECORDS_ARBITRATORS: {
    type: 'string',
    description:
      'Comma-separated ids appointed to arbitrate: when set, a key-signed arbitration_resolution names only these in arbitrator_ids (else 403); unset: any non-party (P203, P241)',
  },
  // P297: SPEC's "M-of-N panels": the M, counted over the appointed arbitrators.
  RECORDS_PANEL_QUORUM: {
    type: 'integer',
    minimum: 1,
    maximum: 100,
    default: 1,
    description:
      'Distinct appointed arbitrators (RECORDS_ARBITRATORS, at least this many) whose signatures of the same arbitration_resolution resolve a dispute; each posts the resolution signed by its key (P297). 1: the first signature resolves',
  },
  // P566: a dispute holds its respondent's key bindings against pruning until it is settled; a filer holds few at once.
  RECORDS_DISPUTE_HOLDS_PER_FILER: {
    type: 'integer',
    minimum: 1,
    maximum: 1_000_000,
    default: DEFAULT_DISPUTE_HOLDS_PER_FILER,
    description:
      "Unsettled disputes one initiator agent may have filed here at once, each holding its respondent's key bindings against pruning until settled (409 beyond; the operator's filings are not counted) (P566)",
  },
  // P606: an unsettled dispute holds its respondent's key bindings for this long at most.
  RECORDS_DISPUTE_HOLD_MAX_AGE_SECONDS: {
    type: 'integer',
    minimum: 0,
    maximum: 315_360_000,
    default: DEFAULT_DISPUTE_HOLD_MAX_AGE_SECONDS,
    description:
      "How long an unsettled dispute holds its respondent's key bindings against pruning and takes a place of its filer's RECORDS_DISPUTE_HOLDS_PER_FILER; after it the bindings are pruned like any other's, the dispute record stays. 0: until settled. At most ten years (P606)",
  },
  // Administrative /v2 writes (D22); unset: none are possible.
  OPERATOR_TOKEN: OPERATOR_TOKEN_ENV.OPERATOR_TOKEN,
} as const satisfies EnvProperties;
