// Every whole-number option of the `proto` command is read here (P178): plain decimal digits without a leading
// zero, inside the option's own range, and never past 2^53 - 1 (Number.MAX_SAFE_INTEGER), where a JavaScript
// number stops holding every integer and `9007199254740993` silently became another value. Anything else is
// bad usage (exit 2, with the usage), before the command reads an input or asks the network anything.
import { CliError } from './io.ts';

export interface IntegerRange {
  readonly min: number;
  readonly max: number;
  /** What the number counts, when the option's name does not say it ("milliseconds"). */
  readonly unit?: string;
}

/** Confirmations: a transaction in a block has one; 0 would pass no differently (P178). Far past any finality rule. */
export const CONFIRMATIONS: IntegerRange = { min: 1, max: 10_000 };
/** An EIP-155 chain id is positive; viem holds it as a JavaScript number. */
export const CHAIN_ID: IntegerRange = { min: 1, max: Number.MAX_SAFE_INTEGER };
/** A position or count that may be 0 (a log index, a list number). */
export const INDEX: IntegerRange = { min: 0, max: Number.MAX_SAFE_INTEGER };
/** A size or count that is at least 1. */
export const SIZE: IntegerRange = { min: 1, max: Number.MAX_SAFE_INTEGER };

/** The message every whole-number option gives for a bad value. */
export function integerRangeMessage(name: string, range: IntegerRange): string {
  const unit = range.unit === undefined ? '' : ` of ${range.unit}`;
  return `--${name} must be a whole number${unit} from ${range.min} to ${range.max}`;
}

/** The option's number, or undefined when it is not given (the command's default applies). */
export function integerOption(value: unknown, name: string, range: IntegerRange): number | undefined {
  if (value === undefined) return undefined;
  // At most 16 digits before Number(): MAX_SAFE_INTEGER has 16, and a longer string is out of range anyway.
  const n = typeof value === 'string' && /^(0|[1-9]\d{0,15})$/.test(value) ? Number(value) : Number.NaN;
  if (!(Number.isSafeInteger(n) && n >= range.min && n <= range.max)) {
    const shown = typeof value === 'string' ? value.slice(0, 40) : String(value);
    throw new CliError(`${integerRangeMessage(name, range)}, got '${shown}'`, { showUsage: true });
  }
  return n;
}
