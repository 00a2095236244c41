// `--at TIME` of `proto verify` (and its --batch workers), `revocation verify` and `attestation verify`: the instant
// the checks are made as of, an RFC 3339 date-time as PROTOCOL writes every time, read with core's instantOf (P178).
import { instantOf } from '@proto/core';
import { CliError } from './io.ts';

/**
 * RFC 3339 §5.6 `date-time`: full date, `T`, full time with seconds and an optional fraction, and a zone. What
 * Date.parse also reads (a date alone, `Jan 1 2026`, `0` as the year 2000, a time without a zone read in the
 * machine's own, `24:00`, 30 February rolled into March) is refused: a verdict as of a time other than the one meant.
 */
const DATE_TIME = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.\d+)?(?:Z|[+-](\d\d):(\d\d))$/;
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

function daysIn(year: number, month: number): number {
  const leapYear = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leapYear ? 29 : (DAYS[month - 1] ?? 0);
}

/**
 * Milliseconds since the epoch of an RFC 3339 instant, or undefined. A leap second (`…T23:59:60Z`) is read as the
 * next midnight (`latest`): a verification as of it finds expired whatever expires at it or before, as it would a
 * moment later; the one millisecond it moves a not-before is the side P178 gives a not-before.
 */
export function rfc3339Instant(text: string): number | undefined {
  // RFC 3339 §5.6 allows lower-case `t` and `z`.
  const upper = text.toUpperCase();
  const parts = DATE_TIME.exec(upper);
  if (parts === null) return undefined;
  const [year, month, day, hour, minute, second, zoneHours = 0, zoneMinutes = 0] = parts
    .slice(1)
    .map((part) => (part === undefined ? undefined : Number(part)));
  if (month === undefined || month < 1 || month > 12) return undefined;
  if (day === undefined || day < 1 || day > daysIn(year ?? 0, month)) return undefined;
  if ((hour ?? 24) > 23 || (minute ?? 60) > 59 || (second ?? 61) > 60) return undefined;
  if (zoneHours > 23 || zoneMinutes > 59) return undefined;
  // A `:60` that is not the last second of a UTC day is no leap second: instantOf says NaN.
  const ms = instantOf(upper, 'latest');
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
