// Jurisdiction codes as revocation lookups see them: ISO 3166 style, compared in upper case.
// Implements issue 12 row a: "us" may not pass as a key other than "US"; a malformed code is a schema error.

/** ISO 3166-1 alpha-2 ("US"), optionally with an ISO 3166-2 subdivision ("US-CA"). */
const ISO_3166_PATTERN = /^[A-Z]{2}(?:-[A-Z0-9]{1,3})?$/;

/** The code in upper case, or undefined when it is not an ISO 3166 style code (even after upper-casing). */
export function normaliseJurisdiction(code: unknown): string | undefined {
  if (typeof code !== 'string') return undefined;
  const upper = code.toUpperCase();
  return ISO_3166_PATTERN.test(upper) ? upper : undefined;
}

/** "US" for "US-CA"; undefined for a country code. */
export function parentJurisdiction(code: string): string | undefined {
  const dash = code.indexOf('-');
  return dash === -1 ? undefined : code.slice(0, dash);
}
