// The instants a PROTOCOL `date-time` can name in UTC: RFC 3339 §5.6 writes the year in four digits, so
// 0000-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z (what Date#toISOString writes without a sign and six digits).
// One definition for every reader turning an upstream's number into a receipt's time (the anchor service's EVM event
// time, Bitcoin block time and log timestamp, P184, P217).

/** 0000-01-01T00:00:00.000Z in milliseconds since the epoch. */
export const FIRST_RFC3339_MS = -62_167_219_200_000;
/** 9999-12-31T23:59:59.999Z in milliseconds since the epoch. */
export const LAST_RFC3339_MS = 253_402_300_799_999;

/** Whether `ms` (milliseconds since the epoch) is an instant an RFC 3339 time with a four-digit year can name. */
export function isRfc3339Instant(ms: number): boolean {
  return Number.isFinite(ms) && ms >= FIRST_RFC3339_MS && ms <= LAST_RFC3339_MS;
}

/** The same for whole seconds since the epoch, as chains write block times (any size, as a bigint or a number). */
export function isRfc3339Second(seconds: bigint | number): boolean {
  if (typeof seconds === 'number') return Number.isInteger(seconds) && isRfc3339Instant(seconds * 1000);
  return seconds >= BigInt(FIRST_RFC3339_MS / 1000) && seconds * 1000n <= BigInt(LAST_RFC3339_MS);
}
