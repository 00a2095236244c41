// A record's own time may not lie ahead of the service's clock (P207). P203 bounded a lifecycle move's `timestamp`
// by the clock skew that revocations, revocation lists and passports are judged by (P173); every record kind
// carries its own time too (PROTOCOL §10.2: `timestamp`, a testament's `created_at` and `last_updated`), and a
// record dated 2999 was stored as a verified statement of something that had not happened. The same bound now
// applies to each. Times that say when something is due or valid (a mandate's `valid_until`, an advisory's
// `response_deadline`, a mirror's `period`) are not the record's own time and may lie ahead.
import { DEFAULT_MAX_CLOCK_SKEW_MS, instantOf } from '@proto/core';

/** The members holding a record kind's own time (each kind in RECORD_ROUTES has a `timestamp` but the testament). */
export function ownTimeFields(kind: string): readonly string[] {
  return kind === 'digital_testament' ? ['created_at', 'last_updated'] : ['timestamp'];
}

export interface ClockIssue {
  readonly path: string;
  readonly message: string;
}

/**
 * The record's own times that lie more than the clock skew ahead of `now`, as schema-style issues (empty when none).
 * A leap second is read at its earliest instant (P178), the reading that refuses least; a time the schema let
 * through but no reading places is left to the schema's verdict.
 */
export function aheadOfClockIssues(
  kind: string,
  record: Readonly<Record<string, unknown>>,
  now: number,
): ClockIssue[] {
  const issues: ClockIssue[] = [];
  for (const field of ownTimeFields(kind)) {
    const text = record[field];
    if (typeof text !== 'string') continue;
    const at = instantOf(text, 'earliest');
    if (Number.isNaN(at) || at - now <= DEFAULT_MAX_CLOCK_SKEW_MS) continue;
    issues.push({
      path: `/${field}`,
      message: `must not lie more than ${DEFAULT_MAX_CLOCK_SKEW_MS / 60_000} minutes ahead of the service's clock (${new Date(now).toISOString()}): a record states what has happened`,
    });
  }
  return issues;
}
