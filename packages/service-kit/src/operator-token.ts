// Bearer-token guard for operator actions (anchoring, revocation publishing, attestation issuance).
// DECISIONS D22: comma-separated OPERATOR_TOKEN, constant-time compare, 401 with a code, generated token file.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { FastifyRequest } from 'fastify';
import { ConfigError } from './config.ts';
import { httpError } from './http-errors.ts';

/** Environment variable of the operator token list (D22). */
export const OPERATOR_TOKEN_ENV = {
  OPERATOR_TOKEN: {
    type: 'string',
    description: 'Comma-separated bearer tokens for operator actions (rotation: list old and new)',
  },
} as const;

export const OPERATOR_TOKEN_FILE = 'operator-token';
const MIN_TOKEN_LENGTH = 16;

export interface OperatorTokens {
  readonly tokens: readonly string[];
  /** Where the tokens came from; the generated file's path when `file`. */
  readonly source: 'env' | 'file';
  readonly filePath?: string;
}

export interface ResolveTokensOptions {
  /** OPERATOR_TOKEN as read from the environment. */
  readonly value: string | undefined;
  readonly dataDir: string;
  /** Where the generated token is kept instead of DATA_DIR/operator-token (e.g. a volume shared with a caller). */
  readonly filePath?: string | undefined;
  /** When true and no token is configured, one is generated into DATA_DIR/operator-token (mode 0600). */
  readonly required: boolean;
  readonly log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

/** Splits and checks the comma-separated token list. */
export function parseTokenList(value: string): string[] {
  const tokens = value
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t.length > 0);
  if (tokens.length === 0)
    throw new ConfigError('OPERATOR_TOKEN is set but holds no token', ['OPERATOR_TOKEN']);
  for (const token of tokens) {
    if (token.length < MIN_TOKEN_LENGTH || /\s/.test(token)) {
      throw new ConfigError(
        `OPERATOR_TOKEN entries must be at least ${MIN_TOKEN_LENGTH} characters without spaces`,
        ['OPERATOR_TOKEN'],
      );
    }
  }
  return tokens;
}

/**
 * Resolves the operator tokens (D22): OPERATOR_TOKEN when set; otherwise, when a token is required, the
 * one stored in DATA_DIR/operator-token, generated on first start. The file's path is logged, never
 * the token. Returns undefined when no token is set and none is required (the guard then stays off).
 */
export function resolveOperatorTokens(options: ResolveTokensOptions): OperatorTokens | undefined {
  if (options.value !== undefined && options.value.trim() !== '') {
    return { tokens: parseTokenList(options.value), source: 'env' };
  }
  if (!options.required) return undefined;
  const filePath =
    options.filePath === undefined
      ? join(resolve(options.dataDir), OPERATOR_TOKEN_FILE)
      : resolve(options.filePath);
  const dir = dirname(filePath);
  mkdirSync(dir, { recursive: true });
  try {
    // 'wx': never overwrite a token an operator already holds.
    writeFileSync(filePath, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
    options.log.info(
      { path: filePath },
      'generated an operator token (OPERATOR_TOKEN unset); read it from this file',
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    if ((statSync(filePath).mode & 0o077) !== 0) {
      chmodSync(filePath, 0o600);
      options.log.warn({ path: filePath }, 'operator token file was readable by others; mode reset to 0600');
    }
    options.log.info({ path: filePath }, 'using the operator token stored in this file');
  }
  return { tokens: parseTokenList(readFileSync(filePath, 'utf8')), source: 'file', filePath };
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** Constant-time membership test: every configured token is compared, equal-length digests only. */
export function tokenMatches(candidate: string, tokens: readonly string[]): boolean {
  const probe = digest(candidate);
  let match = false;
  for (const token of tokens) {
    // The comparison sits left of `||`, so it runs for every entry: no early exit reveals which matched.
    match = timingSafeEqual(probe, digest(token)) || match;
  }
  return match;
}

/**
 * A Fastify `onRequest`/`preHandler` hook requiring `Authorization: Bearer <token>` with one of the
 * tokens; 401 UNAUTHORIZED (with WWW-Authenticate) otherwise.
 */
export function operatorTokenGuard(tokens: OperatorTokens | readonly string[]) {
  const list = Array.isArray(tokens) ? (tokens as readonly string[]) : (tokens as OperatorTokens).tokens;
  return async (request: FastifyRequest): Promise<void> => {
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer[ ]+(\S+)\s*$/i.exec(header) : null;
    if (!match) {
      throw httpError('UNAUTHORIZED', 'An operator bearer token is required', {
        headers: { 'www-authenticate': 'Bearer realm="operator"' },
      });
    }
    if (!tokenMatches(match[1]!, list)) {
      throw httpError('UNAUTHORIZED', 'The operator bearer token is not valid', {
        headers: { 'www-authenticate': 'Bearer realm="operator", error="invalid_token"' },
      });
    }
  };
}
