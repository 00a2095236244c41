// A URL as it may be shown in a message, a log line or an answer: no userinfo, query or fragment, which is where a
// credential sits (`user:password@`, a provider's `:<key>@`, `?token=`). Here rather than in service-kit so that
// fetchBounded, `request` and the CLI, which may not import service-kit, scrub with the services' rule (P540).

/** The URL as it may be shown in replies and logs: scheme, host, port and path; no userinfo, query or fragment. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '<invalid url>';
  }
}

/** `text` with the userinfo of any URL in it (`scheme://user:password@`) replaced by `[redacted]@`. */
export function withoutUserinfo(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/@"'<>]*@/gi, '$1[redacted]@');
}

/** Replaces every occurrence of the full URL (with its secrets), as given or as parsed, by its redacted form. */
export function withoutSecrets(text: string, url: string): string {
  const shown = redactUrl(url);
  let out = url === shown ? text : text.split(url).join(shown);
  try {
    const { href } = new URL(url);
    if (href !== shown) out = out.split(href).join(shown);
  } catch {
    // A value that is no URL was never fetched: only its spelling as given can be in the text.
  }
  return withoutUserinfo(out);
}

/**
 * `error` as it may be shown: fetch's refusal of a URL with credentials, and undici's "Failed to parse URL from …",
 * repeat the URL whole, and callers print `error.message` and its causes. The same error when nothing is to be
 * scrubbed (a caller may read its code or cause); else an Error of the same name with the scrubbed messages.
 */
export function errorWithoutSecrets(error: Error, url: string, depth = 0): Error {
  const original = error.cause;
  const cause =
    original instanceof Error && depth < 8 ? errorWithoutSecrets(original, url, depth + 1) : original;
  const message = withoutSecrets(error.message, url);
  if (message === error.message && cause === original) return error;
  const scrubbed = new Error(message, cause === undefined ? {} : { cause });
  scrubbed.name = error.name;
  return scrubbed;
}
