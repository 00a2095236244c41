// `--timeout MS`, as every command that reads a URL takes it (P176). Node's timers hold at most 2^31 - 1 ms and
// turn anything larger into 1 ms, and 0 is no wait at all: neither is a timeout anyone means, so only whole
// milliseconds from 1 to ten minutes are accepted; anything else is bad usage before the network is asked.
import { integerOption } from './integer-option.ts';

/** Ten minutes per request: longer than any honest node or log takes, far below Node's timer limit. */
export const MAX_TIMEOUT_MS = 600_000;

/** The milliseconds `--timeout` gives, or undefined when it is not given (the command's default applies). */
export function timeoutOption(value: unknown): number | undefined {
  return integerOption(value, 'timeout', { min: 1, max: MAX_TIMEOUT_MS, unit: 'milliseconds' });
}
