// What the main thread's caches count against VERIFICATION_CACHE_MAX_BYTES (P73, P94): one measure for the
// analysis cache, the passport keys kept with an entry until stored (P81) and the exact-body memo's
// evidence, so the three add up in the same unit.

/**
 * About the bytes `value` keeps alive, in the unit of VERIFICATION_CACHE_MAX_BYTES: the length of its JSON
 * text (P73 measured 0.6–2× that in heap for an analysis), counted without writing the text. Escapes in
 * strings are not counted; an object reached twice counts once (it is held once), so shared or cyclic
 * data ends, and the walk uses no recursion: evidence is the sender's to nest. Byte arrays count their
 * bytes; functions, symbols and `undefined` members count nothing, as JSON.stringify leaves them out.
 */
export function retainedBytes(value: unknown): number {
  let bytes = 0;
  const seen = new Set<object>();
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    switch (typeof item) {
      case 'string':
        bytes += item.length + 2;
        continue;
      case 'number':
        bytes += Number.isFinite(item) ? String(item).length : 4;
        continue;
      case 'boolean':
        bytes += item ? 4 : 5;
        continue;
      case 'bigint':
        bytes += item.toString().length;
        continue;
      case 'object':
        break;
      default:
        continue;
    }
    if (item === null) {
      bytes += 4;
      continue;
    }
    if (seen.has(item)) continue;
    seen.add(item);
    if (ArrayBuffer.isView(item)) {
      bytes += item.byteLength;
    } else if (Array.isArray(item)) {
      // Brackets and commas; an empty slot or `undefined` would be written as null.
      bytes += 1 + Math.max(item.length, 1);
      for (const element of item) {
        if (element === undefined || typeof element === 'function' || typeof element === 'symbol') bytes += 4;
        else pending.push(element);
      }
    } else {
      let members = 0;
      const record = item as Record<string, unknown>;
      for (const name of Object.keys(record)) {
        const member = record[name];
        if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
        // "name": plus the comma before every member but the first.
        bytes += name.length + 3;
        members += 1;
        pending.push(member);
      }
      bytes += 1 + Math.max(members, 1);
    }
  }
  return bytes;
}
