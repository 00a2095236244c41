// JSON given in an environment variable (REVOCATION_SOURCES, ATTESTATION_TRUSTED_KEYS, ATTESTATION_PREVIOUS_KEYS),
// read as strictly as a request body (P2, P483): a member name twice is refused instead of JSON.parse's silent
// last-wins, since whoever reads the file (or a tool that merged it) may take the first.
import { checkParsedJson } from '@proto/core';
import { ConfigError } from './config.ts';
import { describeJsonError } from './secret-values.ts';

/**
 * Parses `text` as the JSON value of `variable`. Throws ConfigError naming the variable: for text that is not JSON
 * (by position only, never quoting the text: it may hold a credential) and for JSON with no single reading (a member
 * name twice, a number with no finite value, a lone surrogate), naming the member's path.
 */
export function parseJsonVariable(text: string, variable: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${variable} is not valid JSON: ${describeJsonError(error)}`, [variable]);
  }
  const checked = checkParsedJson(text, value);
  if (!checked.ok) {
    throw new ConfigError(`${variable} has no single reading: ${checked.error.message}`, [variable]);
  }
  return value;
}
