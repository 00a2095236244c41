// The bound keys of a record signature's kids, looked up before verifying: verification is synchronous over what was
// found. One look-up for a record's own signature (write-authorization.ts) and a nested consent's (human-consent.ts).

/** Each kid of `compositeSig` (classical, then PQ) the directory binds, mapped to its binding. */
export async function boundSigningKeys<K>(
  compositeSig: unknown,
  lookup: (kid: string) => Promise<K | undefined> | K | undefined,
): Promise<Map<string, K>> {
  const sig = compositeSig as { classical?: { kid?: unknown }; pq?: { kid?: unknown } | null } | undefined;
  const kids = [sig?.classical?.kid, sig?.pq?.kid].filter((k): k is string => typeof k === 'string');
  const found = new Map<string, K>();
  for (const kid of kids) {
    const binding = await lookup(kid);
    if (binding !== undefined) found.set(kid, binding);
  }
  return found;
}
