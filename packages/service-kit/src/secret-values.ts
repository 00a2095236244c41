// Which configuration variables can hold a credential, and scrubbing their values out of printed text.
// Issue 12 item 4: configuration errors name the variable and the rule, never a credential's value.
import { withoutUserinfo } from '@proto/clients';

/**
 * The name rule: keys, tokens, secrets, passwords, and every URL (a URL can carry `user:password@`
 * or an API key in its path). A property can also say `secret: true` (see EnvProperty).
 */
const SECRET_NAME =
  /(^|_)(KEY|KEYS|TOKEN|TOKENS|SECRET|SECRETS|PASSWORD|PASSPHRASE|CREDENTIALS?|URL|URLS|DSN)$/;

/** Variables a loaded schema marked `secret: true`, whatever their name. */
const markedSecret = new Set<string>();

export function markSecretVariable(name: string): void {
  markedSecret.add(name);
}

export function isSecretVariable(name: string, marked = false): boolean {
  return marked || markedSecret.has(name) || SECRET_NAME.test(name) || name.includes('PRIVATE');
}

const REDACTED = '[redacted]';
/** Values this short would redact ordinary words; no credential is this short. */
const MIN_SCRUBBED_LENGTH = 6;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * `url` without its `user:password@`, when it has one and a path or query where a key can sit (a bare origin is
 * no secret, and scrubbing it would hide which host failed).
 */
function withoutUserinfoPart(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.username === '' && parsed.password === '') return undefined;
    if (parsed.pathname === '/' && parsed.search === '') return undefined;
    parsed.username = '';
    parsed.password = '';
    return parsed.href;
  } catch {
    return undefined;
  }
}

/** The spellings under which a value can reach a message: as given, trimmed, JSON-escaped, its parts. */
function spellings(value: string): string[] {
  const out = new Set<string>([value, value.trim(), JSON.stringify(value).slice(1, -1)]);
  // Lists (OPERATOR_TOKEN, key lists): each entry on its own.
  for (const part of value.split(/[\s,]+/)) out.add(part);
  // P541: a client that sends a URL's userinfo as a header (viem, for an RPC URL) names the URL without it in its
  // errors, and the rest can be the key (`https://user:pw@…/v3/<key>`).
  for (const part of [...out]) {
    const bare = withoutUserinfoPart(part);
    if (bare !== undefined) out.add(bare);
  }
  return [...out].filter((s) => s.length >= MIN_SCRUBBED_LENGTH);
}

/**
 * Replaces, in `text`, the value of every secret variable set in `env` (any spelling above) and the
 * user-info of any URL (`scheme://user:password@`) with `[redacted]`.
 */
export function redactSecrets(
  text: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  let out = text;
  const values = Object.entries(env)
    .filter(([name, value]) => value !== undefined && value !== '' && isSecretVariable(name))
    .flatMap(([, value]) => spellings(value as string))
    // Longest first, so a value is not half-replaced through one of its parts.
    .sort((a, b) => b.length - a.length);
  for (const value of values) out = out.replace(new RegExp(escapeRegExp(value), 'g'), REDACTED);
  return withoutUserinfo(out);
}

/**
 * A JSON.parse failure described by its position only: V8's message quotes a piece of the input,
 * which for a credential-bearing variable is a piece of the credential.
 */
export function describeJsonError(error: unknown): string {
  const position = /position (\d+)/.exec(error instanceof Error ? error.message : '');
  return position ? `syntax error at position ${position[1]}` : 'syntax error';
}
