// Item boundaries of a CBOR sequence (RFC 8742) from the item heads alone: no value is decoded and no text
// is read, so the main thread's cost grows with the number of heads, not with the bytes. The strict
// decoding (PROTOCOL §8.2) happens per item in the worker. Issue 14 item 3.

/**
 * The argument of the head at `pos` and where the head ends; undefined when the head is cut short, has a
 * reserved or indefinite length (31: the strict decoder refuses those anyway). The value may be inexact
 * beyond 2^53: only lengths and counts are used, and those are checked by the caller.
 */
function readHead(bytes: Uint8Array, pos: number): { value: number; next: number } | undefined {
  const info = bytes[pos]! & 0x1f;
  if (info < 24) return { value: info, next: pos + 1 };
  const size = info === 24 ? 1 : info === 25 ? 2 : info === 26 ? 4 : info === 27 ? 8 : 0;
  if (size === 0 || pos + 1 + size > bytes.length) return undefined;
  let value = 0;
  for (let i = 1; i <= size; i++) value = value * 256 + bytes[pos + i]!;
  return { value, next: pos + 1 + size };
}

/** The end of the item starting at `start`, or undefined when the bytes do not hold a whole item. */
function itemEnd(bytes: Uint8Array, start: number): number | undefined {
  let pos = start;
  // Items still to skip; iterative, so a deeply nested body cannot exhaust the stack here.
  let pending = 1;
  while (pending > 0) {
    if (pos >= bytes.length) return undefined;
    const major = bytes[pos]! >> 5;
    const head = readHead(bytes, pos);
    if (head === undefined) return undefined;
    pending -= 1;
    pos = head.next;
    // A length or count past 2^53 is refused (the strict decoder would); any other value is skipped whole.
    if (major >= 2 && major <= 5 && !Number.isSafeInteger(head.value)) return undefined;
    if (major === 2 || major === 3) pos += head.value;
    else if (major === 4) pending += head.value;
    else if (major === 5) pending += 2 * head.value;
    else if (major === 6) pending += 1;
    // Every pending item needs one byte at least: a count beyond the bytes left is a lie, stop early.
    if (pos > bytes.length || pending > bytes.length - pos) return undefined;
  }
  return pos;
}

/** [start, end) of each item; bytes that end no item are returned as one last range. */
export function* cborSequenceItems(bytes: Uint8Array): Generator<[number, number]> {
  let pos = 0;
  while (pos < bytes.length) {
    const end = itemEnd(bytes, pos);
    if (end === undefined) {
      yield [pos, bytes.length];
      return;
    }
    yield [pos, end];
    pos = end;
  }
}
