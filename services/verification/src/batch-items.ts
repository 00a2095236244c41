// Splits a POST /verify/batch body into one byte range per bundle without parsing the bundles: the
// workers parse them (a JSON array, NDJSON lines, or a CBOR sequence). Issue 14 item 3 (batch verification).
import { releaseBytes } from './body-reader.ts';
import { cborSequenceItems } from './cbor-sequence.ts';

export type BatchFormat = 'json-array' | 'ndjson' | 'cbor-seq';

export type SplitResult =
  | { readonly ok: true; readonly items: readonly Uint8Array[] }
  | { readonly ok: false; readonly reason: 'malformed'; readonly message: string }
  | { readonly ok: false; readonly reason: 'too_many'; readonly message: string };

const NEWLINE = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

function isJsonSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

/** Each item gets its own copy, so it can be transferred to a worker without detaching the body. */
function trimmedCopy(body: Uint8Array, start: number, end: number): Uint8Array {
  let s = start;
  let e = end;
  while (s < e && isJsonSpace(body[s]!)) s++;
  while (e > s && isJsonSpace(body[e - 1]!)) e--;
  // Uint8Array's slice copies (Buffer's would return a view of the whole body).
  return Uint8Array.prototype.slice.call(body, s, e);
}

/** NDJSON: one bundle request per line; blank lines (and a final newline) are ignored. */
function splitNdjson(body: Uint8Array, maxItems: number): SplitResult {
  const items: Uint8Array[] = [];
  let start = 0;
  while (start < body.length) {
    let end = body.indexOf(NEWLINE, start);
    if (end === -1) end = body.length;
    const item = trimmedCopy(body, start, end);
    if (item.length > 0) {
      if (items.length === maxItems) return tooMany(maxItems);
      items.push(item);
    }
    start = end + 1;
  }
  return { ok: true, items };
}

function tooMany(maxItems: number): SplitResult {
  return { ok: false, reason: 'too_many', message: `A batch holds at most ${maxItems} bundles` };
}

/**
 * `[b1,b2,]`, `[,b1]`, `[b1,,b2]`: not JSON, and no element the caller could map an answer to. Refused whole, as an
 * unclosed array is: the body is split before anything is verified, answered or charged (P175).
 */
const EMPTY_ELEMENT: SplitResult = {
  ok: false,
  reason: 'malformed',
  message: 'The JSON batch array has an empty element (a comma with no value before or after it)',
};

/**
 * `[\uFEFF{…}]`: U+FEFF is no JSON whitespace, so no JSON parser reads that array; the item's UTF-8 decoder dropped
 * the mark as a text's leading BOM and the element was answered (P337). Refused whole, as an empty element is: the
 * array itself is malformed, not one of its requests. (A mark anywhere else in an element fails in its worker.)
 */
const MARKED_ELEMENT: SplitResult = {
  ok: false,
  reason: 'malformed',
  message:
    'The JSON batch array has an element led by a byte-order mark (U+FEFF), which is not JSON whitespace',
};

const startsWithBom = (item: Uint8Array): boolean => item[0] === 0xef && item[1] === 0xbb && item[2] === 0xbf;

/**
 * A JSON array: finds the top-level commas, skipping strings (and their escapes) and nested
 * brackets. Items are not checked here: a malformed one fails alone, in its worker.
 */
function splitJsonArray(body: Uint8Array, maxItems: number): SplitResult {
  let i = 0;
  while (i < body.length && isJsonSpace(body[i]!)) i++;
  if (body[i] !== 0x5b) return { ok: false, reason: 'malformed', message: 'A JSON batch must be an array' };
  const items: Uint8Array[] = [];
  let depth = 0;
  let inString = false;
  let itemStart = i + 1;
  let closed = -1;
  for (i = i + 1; i < body.length; i++) {
    const byte = body[i]!;
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
      continue;
    }
    if (byte === QUOTE) inString = true;
    else if (byte === 0x7b || byte === 0x5b) depth++;
    else if (byte === 0x7d || byte === 0x5d) {
      if (depth === 0) {
        if (byte !== 0x5d) break;
        closed = i;
        break;
      }
      depth--;
    } else if (byte === COMMA && depth === 0) {
      if (items.length === maxItems) return tooMany(maxItems);
      const item = trimmedCopy(body, itemStart, i);
      if (item.length === 0) return EMPTY_ELEMENT;
      if (startsWithBom(item)) return MARKED_ELEMENT;
      items.push(item);
      itemStart = i + 1;
    }
  }
  if (closed === -1) return { ok: false, reason: 'malformed', message: 'The JSON batch array is not closed' };
  for (let j = closed + 1; j < body.length; j++) {
    if (!isJsonSpace(body[j]!))
      return { ok: false, reason: 'malformed', message: 'Data after the JSON batch array' };
  }
  const last = trimmedCopy(body, itemStart, closed);
  if (last.length === 0 && items.length > 0) return EMPTY_ELEMENT;
  if (last.length > 0) {
    if (startsWithBom(last)) return MARKED_ELEMENT;
    if (items.length === maxItems) return tooMany(maxItems);
    items.push(last);
  }
  return { ok: true, items };
}

/**
 * RFC 8742: CBOR items back to back. Their heads give each item's end; the worker decodes each item as
 * strictly as /verify's CBOR. Bytes whose structure ends no item (truncated, an indefinite or reserved
 * length) become one last item, which its worker refuses alone: the items before it are verified.
 */
function splitCborSequence(body: Uint8Array, maxItems: number): SplitResult {
  const items: Uint8Array[] = [];
  for (const [start, end] of cborSequenceItems(body)) {
    if (items.length === maxItems) return tooMany(maxItems);
    items.push(Uint8Array.prototype.slice.call(body, start, end));
  }
  return { ok: true, items };
}

export function splitBatch(body: Uint8Array, format: BatchFormat, maxItems: number): SplitResult {
  if (format === 'ndjson') return splitNdjson(body, maxItems);
  if (format === 'cbor-seq') return splitCborSequence(body, maxItems);
  return splitJsonArray(body, maxItems);
}

/**
 * splitBatch for a body nothing reads afterwards (the route's, read by body-reader.ts): every item is a copy
 * of its own, so the body's memory is freed once they are cut out, not at the main isolate's next
 * mark-compact, which a few megabytes of dead bodies would start (P134).
 */
export function takeBatchItems(body: Uint8Array, format: BatchFormat, maxItems: number): SplitResult {
  try {
    return splitBatch(body, format, maxItems);
  } finally {
    releaseBytes(body);
  }
}
