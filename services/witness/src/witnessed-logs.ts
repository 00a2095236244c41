// The logs a witness cosigns for (WITNESS_LOGS / WITNESS_LOGS_FILE): each an origin and the C2SP note
// verifier keys its checkpoints must verify under (one valid signature from one of them suffices).
// c2sp.org/tlog-witness ("configured with a list of supported log public keys"); issue 18 item 2.
import { readFileSync } from 'node:fs';
import { type NoteVerifierKey, parseVerifierKey, type WitnessedLog } from '@proto/core';
import { ConfigError } from '@proto/service-kit';

/**
 * Parses the list: entries one per line or separated by ";", "#" starts a comment. An entry is
 * "<origin> <vkey> [<vkey>…]", or vkeys alone, which then share one key name that is the origin.
 */
export function parseWitnessedLogs(text: string, variable: string): WitnessedLog[] {
  const logs = new Map<string, NoteVerifierKey[]>();
  const entries = text
    .split(/[\n;]/)
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter((line) => line !== '');
  for (const entry of entries) {
    const tokens = entry.split(/\s+/);
    const first = parseVerifierKey(tokens[0]);
    const origin = first.ok ? first.value.name : (tokens[0] ?? '');
    const vkeys = first.ok ? tokens : tokens.slice(1);
    if (vkeys.length === 0)
      throw new ConfigError(`${variable}: log ${JSON.stringify(origin)} has no verifier key`, [variable]);
    const keys = logs.get(origin) ?? [];
    for (const vkey of vkeys) {
      const key = parseVerifierKey(vkey);
      if (!key.ok)
        throw new ConfigError(`${variable}: a key of log ${JSON.stringify(origin)}: ${key.error.message}`, [
          variable,
        ]);
      if (first.ok && key.value.name !== origin)
        throw new ConfigError(
          `${variable}: keys listed without an origin must share one key name (${origin}, ${key.value.name})`,
          [variable],
        );
      keys.push(key.value);
    }
    logs.set(origin, keys);
  }
  return [...logs].map(([origin, keys]) => ({ origin, keys }));
}

/** The configured logs, from the variable or the file (neither: none, and the witness warns at start). */
export function loadWitnessedLogs(config: {
  readonly WITNESS_LOGS?: string | undefined;
  readonly WITNESS_LOGS_FILE?: string | undefined;
}): WitnessedLog[] {
  if (config.WITNESS_LOGS_FILE !== undefined) {
    let text: string;
    try {
      text = readFileSync(config.WITNESS_LOGS_FILE, 'utf8');
    } catch (error) {
      throw new ConfigError(`WITNESS_LOGS_FILE cannot be read: ${(error as Error).message}`, [
        'WITNESS_LOGS_FILE',
      ]);
    }
    return parseWitnessedLogs(text, 'WITNESS_LOGS_FILE');
  }
  return parseWitnessedLogs(config.WITNESS_LOGS ?? '', 'WITNESS_LOGS');
}
