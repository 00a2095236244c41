// Jurisdiction codes as revocation lookups see them: ISO 3166 style, compared in upper case.
// Implements issue 12 row a: "us" may not pass as a key other than "US"; a malformed code is a schema error.

/**
 * ISO 3166-1 alpha-2 ("US"), optionally with an ISO 3166-2 subdivision ("US-CA"), in either case. Checked
 * before upper-casing: Unicode case mapping would turn "uſ" (long s) or "ıt" (dotless i) into ASCII codes.
 */
const ISO_3166_PATTERN = /^[A-Za-z]{2}(?:-[A-Za-z0-9]{1,3})?$/;

/** The code in upper case, or undefined when it is not an ISO 3166 style code. */
export function normaliseJurisdiction(code: unknown): string | undefined {
  if (typeof code !== 'string' || !ISO_3166_PATTERN.test(code)) return undefined;
  return code.toUpperCase();
}

/** "US" for "US-CA"; undefined for a country code. */
export function parentJurisdiction(code: string): string | undefined {
  const dash = code.indexOf('-');
  return dash === -1 ? undefined : code.slice(0, dash);
}
