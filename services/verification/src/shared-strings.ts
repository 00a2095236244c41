// A cached analysis arrives from its verification thread by structured clone, which gives every string a
// copy of its own: with 10,000 standard analyses cached, the main thread held 100,000 copies of "pass",
// 20,000 of each signer kid and 40,000 of "active", 1.3 KB of each 2.7 KB analysis (P126).

/**
 * `text` as the engine's one shared copy: a property name is internalized, and the engine's string table
 * holds those weakly, so no table of ours grows with what senders choose to send. A name the engine
 * keeps as an array index comes back as a copy of its own, which changes nothing but the saving.
 */
function shared(text: string): string {
  const holder: Record<string, 0> = Object.create(null);
  holder[text] = 0;
  return Object.keys(holder)[0] ?? text;
}

/**
 * A copy of an analysis (plain objects, arrays, strings, numbers, booleans, null; as the verifier builds
 * it, so its depth is the verifier's, not the sender's) whose strings are the shared copies. Same members
 * in the same order, `undefined` ones included: a cache hit's answer is the miss's byte for byte.
 */
export function withSharedStrings<T>(value: T): T {
  if (typeof value === 'string') return shared(value) as T;
  if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value)) return value;
  if (Array.isArray(value)) return value.map((element) => withSharedStrings(element)) as T;
  const copy: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(value)) {
    // Assigned, an own `__proto__` member would set the copy's prototype instead.
    if (name === '__proto__') {
      Object.defineProperty(copy, name, {
        value: withSharedStrings(member),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else copy[name] = withSharedStrings(member);
  }
  return copy as T;
}
