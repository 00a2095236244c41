// Canonical text through the engine's own JSON.stringify (P118): a checking walk builds key-sorted copies
// where a value's own order is not code-unit order, then one native call writes the text.
// PROTOCOL §1.1 and §1.2, DECISIONS D2. Any value the walk is not sure of goes to the hand-written writer.
import { ok, type Result } from '../result.ts';
import {
  type CanonicalMemo,
  type CanonicalRules,
  type CanonicalSink,
  MAX_CANONICAL_DEPTH,
  type MemoEntry,
  serializeCanonical,
  sortKeys,
  writeCanonical,
} from './serialize.ts';

/** What the walk needs of a rule set: whether JSON.stringify's text of a number is its canonical text. */
export interface NativeRules {
  readonly plainNumber: (value: number) => boolean;
  readonly honourToJSON: boolean;
}

/** The walk's answer when the hand-written writer must decide (a refusal, or a shape native text cannot hold). */
const UNSURE: unique symbol = Symbol('unsure');

const isWellFormed = (text: string): boolean =>
  (text as unknown as { isWellFormed(): boolean }).isWellFormed();

/** One walk's state (an object, not module variables, so a getter that canonicalises meanwhile is harmless). */
interface Walk {
  readonly rules: NativeRules;
  /** Deepest container depth reached (the root container is 0). */
  deepest: number;
  /** The memo whose texts are spliced in, and the entries placeholders stand for, in order. */
  readonly memo: CanonicalMemo | undefined;
  readonly spliced: MemoEntry[];
}

/**
 * Stands for the memoised text `spliced[index]`. JSON.stringify writes its lone surrogate as the escape
 * `\ud800`, right after the opening quote; no accepted string has a lone surrogate, and an accepted
 * string's own backslash is doubled, so that quote-backslash-u-d-8-0-0 appears nowhere else.
 */
const PLACEHOLDER = '\ud800';
const PLACEHOLDER_TEXT = '"\\ud800';

function prepare(node: unknown, depth: number, walk: Walk): unknown {
  switch (typeof node) {
    case 'string':
      return isWellFormed(node) ? node : UNSURE;
    case 'number':
      return walk.rules.plainNumber(node) ? node : UNSURE;
    case 'boolean':
      return node;
    case 'object':
      break;
    default:
      return UNSURE;
  }
  if (node === null) return null;
  if (walk.memo !== undefined) {
    const known = walk.memo.reusable(node, depth);
    if (known !== undefined) {
      if (depth + known.height > walk.deepest) walk.deepest = depth + known.height;
      walk.spliced.push(known);
      return `${PLACEHOLDER}${walk.spliced.length - 1}`;
    }
  }
  if (depth >= MAX_CANONICAL_DEPTH) return UNSURE;
  if (depth > walk.deepest) walk.deepest = depth;
  if (walk.rules.honourToJSON && typeof (node as { toJSON?: unknown }).toJSON === 'function') return UNSURE;
  if (Array.isArray(node)) {
    // A subclass's toJSON, which JSON.stringify would call, is on its own prototype.
    if (Object.getPrototypeOf(node) !== Array.prototype) return UNSURE;
    const items = node as unknown[];
    let copy: unknown[] | undefined;
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (item === undefined) continue; // JSON.stringify writes a hole or undefined slot as null (rule 6)
      const ready = prepare(item, depth + 1, walk);
      if (ready === UNSURE) return UNSURE;
      if (ready !== item) {
        copy ??= items.slice();
        copy[i] = ready;
      }
    }
    return copy ?? items;
  }
  const proto: unknown = Object.getPrototypeOf(node);
  if (proto !== Object.prototype && proto !== null) return UNSURE;
  const record = node as Record<string, unknown>;
  const keys = Object.keys(record);
  let sorted = true;
  for (let i = 1; i < keys.length; i++) {
    if ((keys[i - 1] as string) > (keys[i] as string)) {
      sorted = false;
      break;
    }
  }
  if (!sorted) {
    // Array-index names always enumerate first, in numeric order, so a copy cannot put "10" before "9".
    for (const key of keys) {
      const first = key.charCodeAt(0);
      if (first >= 0x30 && first <= 0x39) return UNSURE;
    }
    sortKeys(keys);
  }
  // A sorted object is passed as it is until a member has to be replaced by a copy of its own.
  let copy: Record<string, unknown> | undefined = sorted ? undefined : {};
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    // An assignment to `__proto__` would set a copy's prototype instead of a member.
    if (key === '__proto__' || !isWellFormed(key)) return UNSURE;
    const member = record[key];
    if (member === undefined) continue; // omitted by JSON.stringify as by the writer (rule 6)
    const ready = prepare(member, depth + 1, walk);
    if (ready === UNSURE) return UNSURE;
    if (copy !== undefined) copy[key] = ready;
    else if (ready !== member) {
      copy = {};
      for (let j = 0; j < i; j++) copy[keys[j] as string] = record[keys[j] as string];
      copy[key] = ready;
    }
  }
  return copy ?? record;
}

/**
 * The canonical text of `value` and its deepest container's height, or undefined when the hand-written
 * writer must answer (every refusal, and the rare shapes this path does not take). A throw while reading
 * the value or writing the text also answers undefined: the writer reads it again and reports the path.
 * With `memo`, its containers are written as placeholders, listed in `spliced` in text order.
 */
function nativeCanonical(
  value: unknown,
  rules: NativeRules,
  memo?: CanonicalMemo,
): { readonly text: string; readonly height: number; readonly spliced: readonly MemoEntry[] } | undefined {
  // A toJSON on these prototypes would be called by JSON.stringify and ignored by the writer.
  if (
    (Object.prototype as { toJSON?: unknown }).toJSON !== undefined ||
    (Array.prototype as { toJSON?: unknown }).toJSON !== undefined
  )
    return undefined;
  const walk: Walk = { rules, deepest: -1, memo, spliced: [] };
  try {
    const ready = prepare(value, 0, walk);
    if (ready === UNSURE || ready === undefined) return undefined;
    return { text: JSON.stringify(ready), height: walk.deepest, spliced: walk.spliced };
  } catch {
    return undefined;
  }
}

/** `serializeCanonical`, through JSON.stringify where the value allows: the same text or the same error. */
export function serializeCanonicalNative(
  value: unknown,
  rules: CanonicalRules & NativeRules,
  memo?: CanonicalMemo,
): Result<string> {
  const native = nativeCanonical(value, rules);
  if (native === undefined) return serializeCanonical(value, rules, memo);
  if (memo !== undefined && typeof value === 'object' && value !== null)
    memo.remember(value, native.text, native.height);
  return ok(native.text);
}

/**
 * `writeCanonical` with memoised containers spliced in: the walk puts a placeholder where a memo holds
 * a container's text, one JSON.stringify writes the rest, and the sink gets the text between
 * placeholders and each memo entry whole. The same pieces' concatenation, or the same error.
 */
export function writeCanonicalNative(
  value: unknown,
  rules: CanonicalRules & NativeRules,
  sink: CanonicalSink,
  memo?: CanonicalMemo,
): Result<number> {
  const native = nativeCanonical(value, rules, memo);
  if (native === undefined) return writeCanonical(value, rules, sink, memo);
  const text = native.text;
  let from = 0;
  for (const [index, entry] of native.spliced.entries()) {
    const at = text.indexOf(PLACEHOLDER_TEXT, from);
    sink.text(text.slice(from, at));
    sink.reuse(entry);
    // The placeholder's own text: quote, the six-character escape, its index, quote.
    from = at + PLACEHOLDER_TEXT.length + String(index).length + 1;
  }
  sink.text(text.slice(from));
  return ok(native.height);
}
