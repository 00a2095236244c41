// ANCHOR_VERIFY_LOG_URL and its keys: the logs a receipt may name, the C2SP verifier keys of their signed
// checkpoints (ANCHOR_VERIFY_LOG_KEY), and the witnesses whose k-of-n cosignatures a checkpoint must carry
// (ANCHOR_VERIFY_WITNESS_KEYS, ANCHOR_VERIFY_WITNESS_QUORUM). DECISIONS D19; docs/project-decisions.md P60.
import { parseCosignerKey, parseVerifierKey } from '@proto/core';
import { ConfigError, type LogSource, parseJsonVariable } from '@proto/service-kit';

const URL_VAR = 'ANCHOR_VERIFY_LOG_URL';
const KEY_VAR = 'ANCHOR_VERIFY_LOG_KEY';
const WITNESS_VAR = 'ANCHOR_VERIFY_WITNESS_KEYS';
const QUORUM_VAR = 'ANCHOR_VERIFY_WITNESS_QUORUM';

export function httpUrl(value: unknown, variable: string, where: string): string {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value.trim()) : undefined;
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new ConfigError(`${where} must be an http(s) URL (got ${JSON.stringify(value)})`, [variable]);
  }
  return url.href.replace(/\/+$/, '');
}

/** httpUrl without repeating a value it cannot parse: a password holding "/" or "#" makes such a URL. */
export function httpUrlNotShown(value: unknown, variable: string, where: string): string {
  try {
    return httpUrl(value, variable, where);
  } catch {
    throw new ConfigError(`${where} must be an http(s) URL (value not shown)`, [variable]);
  }
}

/**
 * An http(s) URL without userinfo (P526, P529), for a URL that is published (P610: fetchBounded could send the
 * userinfo as Basic now, but publishing it would hand the credential to anyone). Neither message repeats the value:
 * what follows the scheme is most likely a credential. `why` says where the URL would have gone.
 */
function urlWithoutCredentials(value: unknown, variable: string, where: string, why: string): string {
  const credentials = () =>
    new ConfigError(`${where} must not carry credentials ("user:password@", value not shown): ${why}`, [
      variable,
    ]);
  if (typeof value === 'string' && /^[a-z][a-z0-9+.-]*:(\/\/)?[^/?#]*@/i.test(value.trim()))
    throw credentials();
  const url = httpUrlNotShown(value, variable, where);
  const parsed = new URL(url);
  if (parsed.username !== '' || parsed.password !== '') throw credentials();
  return url;
}

const PUBLISHED = "the log's URL is published in /console/config.json and the capabilities document";

/**
 * P526: a log's base URL is published (`log_url` of /console/config.json and of the capabilities document), so it
 * carries no userinfo (never reached, its password served to anyone), nor a query or fragment (lost when the log's
 * paths are appended).
 */
export function logBaseUrl(value: unknown, variable: string, where: string): string {
  const url = urlWithoutCredentials(value, variable, where, PUBLISHED);
  if (/[?#]/.test(url)) {
    throw new ConfigError(
      `${where} must be the log's base URL without a query or fragment (value not shown): ${PUBLISHED}, and the ` +
        "log's paths are appended to it",
      [variable],
    );
  }
  return url;
}

function splitList(text: string | undefined): string[] {
  return (text ?? '').split(/[\s,]+/).filter((k) => k !== '');
}

function checkVerifierKeys(keys: readonly unknown[], variable: string, where: string): string[] {
  return keys.map((key, i) => {
    const parsed = parseVerifierKey(key);
    if (!parsed.ok) throw new ConfigError(`${where}[${i}]: ${parsed.error.message}`, [variable]);
    return (key as string).trim();
  });
}

function checkWitnessKeys(keys: readonly unknown[], variable: string, where: string): string[] {
  const seen = new Set<string>();
  return keys.map((key, i) => {
    const parsed = parseCosignerKey(key);
    if (!parsed.ok) throw new ConfigError(`${where}[${i}]: ${parsed.error.message}`, [variable]);
    const id = `${parsed.value.name}+${parsed.value.keyId}`;
    if (seen.has(id))
      throw new ConfigError(`${where}[${i}]: witness ${parsed.value.name} is listed twice`, [variable]);
    seen.add(id);
    return (key as string).trim();
  });
}

/** k must be 1..n for every log it applies to: a quorum no checkpoint can reach is refused at boot. */
function checkQuorum(quorum: unknown, witnesses: number, variable: string, where: string): number {
  if (typeof quorum !== 'number' || !Number.isSafeInteger(quorum) || quorum < 1 || quorum > witnesses) {
    throw new ConfigError(
      `${where} must be an integer from 1 to the number of witness keys (${witnesses}), got ${JSON.stringify(quorum)}`,
      [variable],
    );
  }
  return quorum;
}

interface Shared {
  readonly keys: string[];
  readonly witnesses: string[];
  readonly quorum: number | undefined;
}

function logSource(url: string, own: Partial<LogSource>, shared: Shared, where: string): LogSource {
  const keys = own.keys !== undefined && own.keys.length > 0 ? [...own.keys] : shared.keys;
  const ownWitnesses = own.witnesses !== undefined && own.witnesses.length > 0;
  const witnesses = ownWitnesses ? [...(own.witnesses ?? [])] : shared.witnesses;
  if (witnesses.length === 0) {
    if (own.quorum !== undefined)
      throw new ConfigError(`${where}.quorum is set without witnesses`, [URL_VAR]);
    return keys.length > 0 ? { url, keys } : { url };
  }
  if (keys.length === 0) {
    // Witnesses cosign many logs: only the log's own key pins which log's checkpoint this is.
    throw new ConfigError(`${where} has witness keys but no log verifier keys (${KEY_VAR} or "keys")`, [
      ownWitnesses ? URL_VAR : WITNESS_VAR,
      KEY_VAR,
    ]);
  }
  const quorum =
    own.quorum !== undefined
      ? checkQuorum(own.quorum, witnesses.length, URL_VAR, `${where}.quorum`)
      : checkQuorum(
          shared.quorum ?? witnesses.length,
          witnesses.length,
          QUORUM_VAR,
          `${QUORUM_VAR} for ${where}`,
        );
  return { url, keys, witnesses, quorum };
}

function jsonEntry(entry: unknown, i: number, shared: Shared): LogSource {
  const where = `${URL_VAR}[${i}]`;
  if (typeof entry === 'string') return logSource(logBaseUrl(entry, URL_VAR, where), {}, shared, where);
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
    throw new ConfigError(`${where} must be a URL or {url, keys?, witnesses?, quorum?}`, [URL_VAR]);
  }
  const record = entry as Record<string, unknown>;
  for (const field of ['keys', 'witnesses'] as const) {
    if (record[field] !== undefined && !Array.isArray(record[field]))
      throw new ConfigError(`${where}.${field} must be an array of keys`, [URL_VAR]);
  }
  const keys = checkVerifierKeys((record['keys'] as unknown[] | undefined) ?? [], URL_VAR, `${where}.keys`);
  const witnesses = checkWitnessKeys(
    (record['witnesses'] as unknown[] | undefined) ?? [],
    URL_VAR,
    `${where}.witnesses`,
  );
  const quorum = record['quorum'];
  if (quorum !== undefined && typeof quorum !== 'number')
    throw new ConfigError(`${where}.quorum must be an integer`, [URL_VAR]);
  return logSource(
    logBaseUrl(record['url'], URL_VAR, `${where}.url`),
    { keys, witnesses, ...(quorum === undefined ? {} : { quorum }) },
    shared,
    where,
  );
}

/**
 * ANCHOR_VERIFY_LOG_URL: comma-separated base URLs, each checked with the keys of ANCHOR_VERIFY_LOG_KEY and
 * the witnesses of ANCHOR_VERIFY_WITNESS_KEYS, or JSON `[{"url", "keys"?, "witnesses"?, "quorum"?}]` (an entry
 * without keys or witnesses takes the variables'). k: the entry's quorum, else ANCHOR_VERIFY_WITNESS_QUORUM,
 * else every witness.
 */
export function readLogSources(
  urlText: string | undefined,
  keyText: string | undefined,
  witnessText: string | undefined,
  quorum: number | undefined,
): LogSource[] | undefined {
  const shared: Shared = {
    keys: checkVerifierKeys(splitList(keyText), KEY_VAR, KEY_VAR),
    witnesses: checkWitnessKeys(splitList(witnessText), WITNESS_VAR, WITNESS_VAR),
    quorum,
  };
  if (urlText === undefined) {
    const given: [string, boolean][] = [
      [KEY_VAR, shared.keys.length > 0],
      [WITNESS_VAR, shared.witnesses.length > 0],
      [QUORUM_VAR, quorum !== undefined],
    ];
    const orphans = given.filter(([, set]) => set).map(([name]) => name);
    if (orphans.length > 0)
      throw new ConfigError(`${orphans.join(', ')} set but ${URL_VAR} names no log`, [...orphans, URL_VAR]);
    return undefined;
  }
  const trimmed = urlText.trim();
  let sources: LogSource[];
  if (!trimmed.startsWith('[')) {
    const urls = trimmed
      .split(',')
      .map((u) => u.trim())
      .filter((u) => u !== '');
    if (urls.length === 0) throw new ConfigError(`${URL_VAR} names no log`, [URL_VAR]);
    sources = urls.map((u, i) =>
      logSource(logBaseUrl(u, URL_VAR, `${URL_VAR}[${i}]`), {}, shared, `${URL_VAR}[${i}]`),
    );
  } else {
    const value = parseJsonVariable(trimmed, URL_VAR);
    if (!Array.isArray(value) || value.length === 0) {
      throw new ConfigError(
        `${URL_VAR} must be a non-empty JSON array of {url, keys?, witnesses?, quorum?}`,
        [URL_VAR],
      );
    }
    sources = value.map((entry: unknown, i) => jsonEntry(entry, i, shared));
  }
  if (quorum !== undefined && !sources.some((s) => s.witnesses !== undefined)) {
    throw new ConfigError(`${QUORUM_VAR} is set but no log has witness keys (${WITNESS_VAR})`, [
      QUORUM_VAR,
      WITNESS_VAR,
    ]);
  }
  return sources;
}
