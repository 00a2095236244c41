// RFC 8785 JSON canonicalization in the browser: sorted keys (UTF-16 code units), ECMAScript numbers.
// PROTOCOL §3 / D2: bundle hashes, audit-entry hashes and revocation-list signatures cover jcs(value).

export function canonicalize(value) {
  if (value === null || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error('JCS: non-finite number');
    return JSON.stringify(value);
  }
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalize).join(',')}]`;
  if (typeof value === 'object') {
    const keys = Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalize(value[k])}`).join(',')}}`;
  }
  throw new Error(`JCS: cannot canonicalize a ${typeof value}`);
}
