// `--at TIME` of `proto verify` (and its --batch workers), `revocation verify` and `attestation verify`: the instant
// the checks are made as of, a PROTOCOL date-time as the schemas accept every time, read with core's reader (P221).
import { dateTimeInstant } from '@proto/core';
import { CliError } from './io.ts';

/**
 * Milliseconds since the epoch of a PROTOCOL `date-time` (core's isDateTime: what a document's times may be), or
 * undefined. What Date.parse also reads (a date alone, `Jan 1 2026`, `0` as the year 2000, a time without a zone
 * read in the machine's own, `24:00`, 30 February rolled into March) is refused: a verdict as of a time other than
 * the one meant. A leap second (`…T23:59:60Z`) is read as the next midnight (`latest`): a verification as of it
 * finds expired whatever expires at it or before, as it would a moment later; the one millisecond it moves a
 * not-before is the side P178 gives a not-before.
 */
export function rfc3339Instant(text: string): number | undefined {
  const ms = dateTimeInstant(text, 'latest');
  return Number.isNaN(ms) ? undefined : ms;
}

/** The --at option as a Date; anything but an RFC 3339 instant is bad usage (exit 2), before anything is read. */
export function atOption(value: unknown): Date | undefined {
  if (value === undefined) return undefined;
  const ms = typeof value === 'string' ? rfc3339Instant(value) : undefined;
  if (ms === undefined) {
    throw new CliError(
      `--at must be an ISO 8601 time in RFC 3339 form, a date, a time and a zone (2026-01-01T12:00:00Z), got '${String(value).slice(0, 80)}'`,
      { showUsage: true },
    );
  }
  return new Date(ms);
}
