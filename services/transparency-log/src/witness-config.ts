// LOG_WITNESSES and LOG_WITNESS_QUORUM: the witnesses the log submits its checkpoints to (c2sp.org/tlog-witness),
// each with the cosigner key its answers must verify under, and how many must cosign before a checkpoint is
// published. Issue 18 item 2, the log side; docs/project-decisions.md P56.
import { type CosignerKey, parseCosignerKey } from '@proto/core';
import { ConfigError } from '@proto/service-kit';

export interface WitnessEndpoint {
  /** Submission prefix: requests go to `<url>/add-checkpoint`. */
  readonly url: string;
  readonly key: CosignerKey;
  /** `<key name>+<8 hex key ID>`: the witness's identity in the store, metrics and logs. */
  readonly id: string;
}

const VARIABLE = 'LOG_WITNESSES';

export function witnessId(key: CosignerKey): string {
  return `${key.name}+${key.keyId.toString(16).padStart(8, '0')}`;
}

function endpoint(url: unknown, vkey: unknown, where: string): WitnessEndpoint {
  if (typeof url !== 'string' || !/^https?:\/\/[^\s]+$/.test(url.trim())) {
    throw new ConfigError(`${where}: the witness URL must be http(s)://…`, [VARIABLE]);
  }
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw new ConfigError(`${where}: the witness URL is not a URL`, [VARIABLE]);
  }
  // P610 (after P541's refusal): userinfo is taken. fetchBounded sends it as Basic authorization to that origin alone
  // (P580), and the log publishes no witness URL (lines, metrics and /health name the witness by key ID).
  // The message never repeats the URL: what a query carries is most likely a credential.
  if (parsed.search !== '' || parsed.hash !== '' || /[?#]/.test(url)) {
    throw new ConfigError(
      `${where}: the witness URL must not carry a query or fragment: requests go to <url>/add-checkpoint`,
      [VARIABLE],
    );
  }
  const key = parseCosignerKey(vkey);
  if (!key.ok) throw new ConfigError(`${where}: ${key.error.message}`, [VARIABLE]);
  return { url: url.trim().replace(/\/+$/, ''), key: key.value, id: witnessId(key.value) };
}

function fromJson(text: string): WitnessEndpoint[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ConfigError(`${VARIABLE} starts with "[" but is not JSON`, [VARIABLE]);
  }
  if (!Array.isArray(value))
    throw new ConfigError(`${VARIABLE} must be a JSON array of {url, key}`, [VARIABLE]);
  return value.map((entry: unknown, i) => {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      throw new ConfigError(`${VARIABLE}[${i}] must be {"url": "…", "key": "<witness vkey>"}`, [VARIABLE]);
    }
    const record = entry as Record<string, unknown>;
    return endpoint(record['url'], record['key'], `${VARIABLE}[${i}]`);
  });
}

function fromList(text: string): WitnessEndpoint[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
    .map((item, i) => {
      const parts = item.split(/\s+/);
      if (parts.length !== 2) {
        throw new ConfigError(`${VARIABLE}[${i}] must be "<url> <witness vkey>"`, [VARIABLE]);
      }
      return endpoint(parts[0], parts[1], `${VARIABLE}[${i}]`);
    });
}

/**
 * Comma-separated `<url> <vkey>` pairs, or JSON `[{"url": "…", "key": "<vkey>"}]`. Unset or empty:
 * no witnesses, and checkpoints are published as the log signs them.
 */
export function parseLogWitnesses(text: string | undefined): WitnessEndpoint[] {
  if (text === undefined || text.trim() === '') return [];
  const trimmed = text.trim();
  const witnesses = trimmed.startsWith('[') ? fromJson(trimmed) : fromList(trimmed);
  const seen = new Set<string>();
  for (const witness of witnesses) {
    if (seen.has(witness.id)) {
      throw new ConfigError(`${VARIABLE} names the witness key ${witness.id} twice`, [VARIABLE]);
    }
    seen.add(witness.id);
  }
  return witnesses;
}

/** LOG_WITNESS_QUORUM: 1..n; unset means every configured witness (P56). */
export function witnessQuorum(quorum: number | undefined, witnesses: readonly WitnessEndpoint[]): number {
  if (quorum === undefined) return witnesses.length;
  if (witnesses.length === 0) {
    throw new ConfigError('LOG_WITNESS_QUORUM is set but LOG_WITNESSES names no witness', [
      'LOG_WITNESS_QUORUM',
      VARIABLE,
    ]);
  }
  if (quorum > witnesses.length) {
    throw new ConfigError(
      `LOG_WITNESS_QUORUM (${quorum}) is more than the ${witnesses.length} witnesses of LOG_WITNESSES`,
      ['LOG_WITNESS_QUORUM', VARIABLE],
    );
  }
  return quorum;
}
