// Typed HTTP errors and the one error body every 4xx/5xx response carries.
// docs/architecture.md §6 (`{ error: { code, message, retryable, details? } }`), DECISIONS D13 (profile's codes).
import { type ErrorName, errorCode, errorDefinition, type ProtocolProfile } from '@proto/core';

/**
 * Stable codes for HTTP-level conditions that have no protocol code. Protocol conditions use the
 * profile's `PROTO-E###` instead (E001 schema, E700 rate limit, E702 backpressure, E900 internal).
 */
export const HTTP_ERROR_STATUS = {
  BAD_REQUEST: 400,
  INVALID_ID: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  NOT_ACCEPTABLE: 406,
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  /** Raised under this name where no profile is at hand; sent as the profile's E001 (unsupportedMediaType). */
  UNSUPPORTED_MEDIA_TYPE: 415,
  /** An `Expect` other than 100-continue (P256). */
  EXPECTATION_FAILED: 417,
  HEADERS_TOO_LARGE: 431,
  NOT_IMPLEMENTED: 501,
  BAD_GATEWAY: 502,
  NOT_READY: 503,
  GATEWAY_TIMEOUT: 504,
} as const;

export type HttpErrorName = keyof typeof HTTP_ERROR_STATUS;

/** The body of every error response. */
export interface ErrorBody {
  readonly error: {
    readonly code: string;
    readonly message: string;
    readonly retryable: boolean;
    readonly details?: unknown;
  };
}

export interface HttpErrorInit {
  readonly statusCode: number;
  readonly code: string;
  readonly message: string;
  readonly retryable?: boolean;
  readonly details?: unknown;
  /** Response headers that belong to the error (Retry-After, Allow, WWW-Authenticate). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Statuses a client may retry by default (transient); 501 and every other 4xx are not. */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/** An error whose message is safe to show the caller; rendered as-is by the service's error handler. */
export class HttpError extends Error {
  readonly statusCode: number;
  readonly code: string;
  readonly retryable: boolean;
  readonly details: unknown;
  readonly headers: Readonly<Record<string, string>>;

  constructor(init: HttpErrorInit) {
    super(init.message);
    this.name = 'HttpError';
    this.statusCode = init.statusCode;
    this.code = init.code;
    this.retryable = init.retryable ?? RETRYABLE_STATUSES.has(init.statusCode);
    this.details = init.details;
    this.headers = init.headers ?? {};
  }

  toBody(): ErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        retryable: this.retryable,
        ...(this.details === undefined ? {} : { details: this.details }),
      },
    };
  }
}

export interface ErrorOptions {
  readonly details?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  readonly retryable?: boolean;
}

/** An HTTP-level error under its stable name (`NOT_FOUND`, `UNAUTHORIZED`, …). */
export function httpError(name: HttpErrorName, message: string, options: ErrorOptions = {}): HttpError {
  return new HttpError({ statusCode: HTTP_ERROR_STATUS[name], code: name, message, ...options });
}

/**
 * The 415 a body the service cannot read gets (a Content-Type it does not take, a charset other than UTF-8, a
 * Content-Encoding): the profile's E001, as a body that is not JSON gets (400), since neither is a document this
 * service can read; the status still says why (P202). The error handler sends every 415 through here.
 */
export function unsupportedMediaType(
  profile: ProtocolProfile,
  message: string,
  options: Pick<ErrorOptions, 'headers'> = {},
): HttpError {
  return protocolError('BUNDLE_SCHEMA_INVALID', profile, message, { ...options, statusCode: 415 });
}

/** The 413 a body over `bodyLimit` bytes gets: the error handler's, and a batch item's in its place (P142). */
export function bodyTooLarge(bodyLimit: number): HttpError {
  return httpError('PAYLOAD_TOO_LARGE', `Request body exceeds the limit of ${bodyLimit} bytes`);
}

/**
 * A protocol error under the profile's prefix (`PROTO-E700`), with the registry's status and retryable
 * flag unless overridden (D13).
 */
export function protocolError(
  name: ErrorName,
  profile: ProtocolProfile,
  message?: string,
  options: ErrorOptions & { readonly statusCode?: number } = {},
): HttpError {
  const definition = errorDefinition(name);
  return new HttpError({
    statusCode: options.statusCode ?? definition.httpStatus,
    code: errorCode(name, profile),
    message: message ?? definition.message,
    retryable: options.retryable ?? definition.retryable,
    ...(options.details === undefined ? {} : { details: options.details }),
    ...(options.headers === undefined ? {} : { headers: options.headers }),
  });
}

/** JSON Schema of ErrorBody, for route `response` declarations and the OpenAPI document. */
export const errorResponseSchema = {
  type: 'object',
  description: 'Every 4xx/5xx response',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'retryable'],
      properties: {
        code: { type: 'string', examples: ['PROTO-E001', 'NOT_FOUND'] },
        message: { type: 'string' },
        retryable: { type: 'boolean' },
        details: {},
      },
    },
  },
} as const;
