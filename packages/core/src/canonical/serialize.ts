// The canonical JSON writer shared by V2 (dcp-jcs-v1) and V1: sorted keys, compact, JSON.stringify escaping.
// PROTOCOL §1.1 rules 1–3 and 5–8, §1.2; DECISIONS D2 (depth > 64, lone surrogates, bad numbers fail with a code).
import { type CoreError, coreError, err, ok, type Result } from '../result.ts';
import { type PathSegment, renderPath } from './json-path.ts';

/** Deepest nesting of arrays/objects accepted; the outermost container is depth 1 (D2). */
export const MAX_CANONICAL_DEPTH = 64;

/** What differs between the two canonical forms. */
export interface CanonicalRules {
  /** Named in error messages, e.g. `dcp-jcs-v1`. */
  readonly name: string;
  /** Canonical text of a number, or the reason it is refused (the caller adds the path). */
  readonly formatNumber: (value: number) => { readonly text: string } | { readonly refused: string };
  /** Call a function-valued `toJSON` once, without arguments, as json-stable-stringify does (V1 only). */
  readonly honourToJSON: boolean;
}

/** A container's canonical text kept by a memo, with its UTF-8 bytes once something encoded them. */
export interface MemoEntry {
  readonly text: string;
  /** Its deepest nested container, the container itself being 0. */
  readonly height: number;
  bytes?: Uint8Array;
}

/**
 * Canonical texts of containers already written under one set of rules, by object identity, so that
 * a value holding them (the whole V2 bundle around its payloads) is not serialised twice. Scope one
 * to a single verification: it is only as true as the objects are unchanged since they were written.
 * Each entry keeps the container's height, so reusing it deeper in a larger value still enforces
 * MAX_CANONICAL_DEPTH exactly.
 */
export class CanonicalMemo {
  readonly rules: CanonicalRules;
  private readonly entries = new Map<object, MemoEntry>();

  constructor(rules: CanonicalRules) {
    // A toJSON result is not the object it came from, so identity would name the wrong text.
    if (rules.honourToJSON) throw new TypeError('a canonical memo cannot serve rules that call toJSON');
    this.rules = rules;
  }

  /** The entry of `container` when it can be reused at `depth` (its deepest part stays within the limit). */
  reusable(container: object, depth: number): MemoEntry | undefined {
    const entry = this.entries.get(container);
    return entry !== undefined && depth + entry.height < MAX_CANONICAL_DEPTH ? entry : undefined;
  }

  remember(container: object, text: string, height: number): void {
    this.entries.set(container, { text, height });
  }

  /** Keeps the UTF-8 form of a remembered container's text (the text it was encoded from). */
  rememberBytes(container: object, text: string, bytes: Uint8Array): void {
    const entry = this.entries.get(container);
    if (entry !== undefined && entry.text === text) entry.bytes = bytes;
  }
}

/**
 * Where the writer's output goes, in order: pieces of text, and whole memoised containers. A string
 * for `serializeCanonical`; an incremental hash for `digestCanonical` (no text of the whole value).
 */
export interface CanonicalSink {
  text(piece: string): void;
  reuse(entry: MemoEntry): void;
}

/** Internal signal carrying a path-qualified message; never escapes the writer. */
class CanonicalFailure {
  readonly message: string;
  constructor(message: string) {
    this.message = message;
  }
}

/** `String.prototype.isWellFormed` (no lone surrogate) is ES2024 (Node ≥ 20); the project's lib is ES2023. */
const isWellFormed = (text: string): boolean =>
  (text as unknown as { isWellFormed(): boolean }).isWellFormed();

/**
 * What JSON.stringify would escape, and any surrogate (paired ones too, so that every string that
 * could hold a lone one takes the checked path). A string with none of these quotes as itself.
 * Measured (issue 14, Node 24): on strings up to about 100 characters this scan and a template
 * cost less than the JSON.stringify call (30–75 ns against 55–90 ns a string, hundreds of strings a
 * bundle); on longer ones JSON.stringify's own scan is faster (0.45 against 0.65 ns a character),
 * and isWellFormed is O(1) on one-byte strings. From SEARCH_MIN_LENGTH on (base64 keys and
 * signatures), searching for each escaped character beats both.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the controls are what JSON.stringify escapes
const NEEDS_CARE = /["\\\u0000-\u001f\ud800-\udfff]/;
const SCAN_MAX_LENGTH = 96;

/**
 * Every character JSON.stringify escapes, as one-character strings. From this length on a string is
 * searched for each of them (`includes` is a memchr-like native search) before JSON.stringify is
 * asked: measured (P108, Node 24) on base64 text, the 34 searches cost 0.74 µs against 1.37 µs for
 * JSON.stringify at 800 characters and 1.2 against 4.0 µs at 4,400 (an ML-DSA-65 signature); at
 * 200 characters they cost more (0.47 against 0.26 µs), hence the floor.
 */
const ESCAPED_CHARACTERS: readonly string[] = [
  '"',
  '\\',
  ...Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(code)),
];
const SEARCH_MIN_LENGTH = 512;

function hasNoEscapedCharacter(text: string): boolean {
  // Indexed: `for…of` left an array iterator on the heap per long string (P133).
  for (let i = 0; i < ESCAPED_CHARACTERS.length; i++)
    if (text.includes(ESCAPED_CHARACTERS[i] as string)) return false;
  return true;
}

/**
 * `"name":` and `,"name":` of member names already quoted once: a bundle repeats a few dozen names hundreds of times.
 * Emptied when full, so names no bundle repeats cannot keep the ones that do out; the form does not
 * depend on the rules, and only names that quoted without error are kept.
 */
const KEY_LABELS = new Map<string, { readonly first: string; readonly next: string }>();
const KEY_LABELS_MAX = 1024;
const KEY_LABEL_MAX_LENGTH = 64;

/** Up to this many names are sorted in place by insertion; more go to Array.prototype.sort. */
const INSERTION_SORT_MAX = 24;

/**
 * Member names in UTF-16 code-unit order, as RFC 8785 and the TS SDK sort them (rule 1, D2): the
 * order of `Array.prototype.sort()` and of `<` on strings. Measured (issue 14): on the 5–15 names of
 * a bundle's objects an insertion sort costs 40 % of the builtin's call; its quadratic worst case is
 * why larger objects keep the builtin.
 */
function sortKeys(keys: string[]): string[] {
  if (keys.length > INSERTION_SORT_MAX) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i] as string;
    let j = i - 1;
    while (j >= 0 && (keys[j] as string) > key) {
      keys[j + 1] = keys[j] as string;
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
}

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function describeObject(value: object): string {
  const ctor: unknown = (value as { constructor?: unknown }).constructor;
  const name = typeof ctor === 'function' && ctor.name !== '' ? ctor.name : 'object';
  return `object of type ${name}`;
}

/**
 * Writes the canonical form of `value` under `rules` into `sink`; the error when it has none (the
 * sink then holds a partial form, to be discarded). On success, the height of the deepest container.
 * Never throws: failures of the input itself (getters, proxies, toJSON methods that throw, strings
 * too long for the engine) become errors too.
 */
export function writeCanonical(
  value: unknown,
  rules: CanonicalRules,
  sink: CanonicalSink,
  memo?: CanonicalMemo,
): Result<number> {
  if (memo !== undefined && memo.rules !== rules) throw new TypeError('canonical memo of other rules');
  const path: PathSegment[] = [];
  // The containers open on the current path, by depth: a container is a cycle when it is one of those
  // above it. A Set's add and delete for every container were a tenth of what the writer allocated
  // (P133); the path is at most MAX_CANONICAL_DEPTH long, and slots past it are stale and never read.
  const ancestors: object[] = [];
  /** Depth of the deepest container met so far (the root container is at 0). */
  let deepest = -1;

  const fail = (what: string): never => {
    throw new CanonicalFailure(`${renderPath(path)}: ${what}`);
  };

  const quote = (text: string, role: 'string' | 'key'): string => {
    const length = text.length;
    if (length <= SCAN_MAX_LENGTH) {
      if (!NEEDS_CARE.test(text)) return `"${text}"`;
    } else if (length >= SEARCH_MIN_LENGTH && hasNoEscapedCharacter(text)) {
      // JSON.stringify leaves paired surrogates as they are, so only a lone one changes the answer.
      if (!isWellFormed(text)) fail(`${role} contains a lone surrogate, not allowed by ${rules.name}`);
      return `"${text}"`;
    }
    if (!isWellFormed(text)) fail(`${role} contains a lone surrogate, not allowed by ${rules.name}`);
    return JSON.stringify(text);
  };

  // The value a slot stands for: a function-valued toJSON is called (V1 only); read with `path` set.
  const resolve = (input: unknown): unknown => {
    if (rules.honourToJSON && typeof input === 'object' && input !== null) {
      const toJSON: unknown = (input as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') return (toJSON as () => unknown).call(input);
    }
    return input;
  };

  // `node` is resolved and not undefined (containers decide how an undefined slot renders).
  const write = (node: unknown, depth: number): void => {
    switch (typeof node) {
      case 'boolean':
        sink.text(node ? 'true' : 'false');
        return;
      case 'string':
        sink.text(quote(node, 'string'));
        return;
      case 'number': {
        const formatted = rules.formatNumber(node);
        sink.text('text' in formatted ? formatted.text : fail(formatted.refused));
        return;
      }
      case 'bigint':
        fail(`bigint ${node} is not allowed by ${rules.name}`);
        return;
      case 'symbol':
        fail(`symbol is not allowed by ${rules.name}`);
        return;
      case 'function':
        fail(`function is not allowed by ${rules.name}`);
        return;
      default:
        break;
    }
    if (node === null) {
      sink.text('null');
      return;
    }
    const container = node as object;
    const known = memo?.reusable(container, depth);
    if (known !== undefined) {
      if (depth + known.height > deepest) deepest = depth + known.height;
      sink.reuse(known);
      return;
    }
    if (depth > deepest) deepest = depth;
    if (depth >= MAX_CANONICAL_DEPTH) fail(`nesting depth exceeds ${MAX_CANONICAL_DEPTH}`);
    for (let d = 0; d < depth; d++) if (ancestors[d] === container) fail('cycle: the value contains itself');
    ancestors[depth] = container;
    if (Array.isArray(container)) {
      const items = container as readonly unknown[];
      const length = items.length;
      sink.text('[');
      for (let i = 0; i < length; i++) {
        if (i !== 0) sink.text(',');
        path.push(i);
        const item = resolve(items[i]);
        // Holes and undefined slots render as null (PROTOCOL §1.1 rule 6).
        if (item === undefined) sink.text('null');
        else write(item, depth + 1);
        path.pop();
      }
      sink.text(']');
    } else if (isPlainObject(container)) {
      const record = container as Readonly<Record<string, unknown>>;
      const keys = sortKeys(Object.keys(record));
      let first = true;
      sink.text('{');
      for (const key of keys) {
        path.push(key);
        let label = KEY_LABELS.get(key);
        if (label === undefined) {
          const quoted = quote(key, 'key');
          label = { first: `${quoted}:`, next: `,${quoted}:` };
          if (key.length <= KEY_LABEL_MAX_LENGTH) {
            if (KEY_LABELS.size >= KEY_LABELS_MAX) KEY_LABELS.clear();
            KEY_LABELS.set(key, label);
          }
        }
        const member = resolve(record[key]);
        if (member !== undefined) {
          // undefined members are omitted (rule 6)
          sink.text(first ? label.first : label.next);
          first = false;
          write(member, depth + 1);
        }
        path.pop();
      }
      sink.text('}');
    } else {
      fail(`${describeObject(container)} is not plain JSON data`);
      return;
    }
  };

  try {
    const root = resolve(value);
    if (root === undefined) return err(schemaError(`$: undefined has no JSON form`));
    write(root, 0);
    return ok(deepest);
  } catch (caught) {
    if (caught instanceof CanonicalFailure) return err(schemaError(caught.message));
    return err(schemaError(`${renderPath(path)}: value could not be read (${describeThrown(caught)})`));
  }
}

/** Collects the pieces into one string. */
class TextSink implements CanonicalSink {
  out = '';
  text(piece: string): void {
    this.out += piece;
  }
  reuse(entry: MemoEntry): void {
    this.out += entry.text;
  }
}

/**
 * Canonical text of `value` under `rules` (see `writeCanonical`). With `memo`, a container value's
 * text is remembered there for larger values that hold it. Never throws.
 */
export function serializeCanonical(
  value: unknown,
  rules: CanonicalRules,
  memo?: CanonicalMemo,
): Result<string> {
  const sink = new TextSink();
  const written = writeCanonical(value, rules, sink, memo);
  if (!written.ok) return written;
  if (memo !== undefined && typeof value === 'object' && value !== null)
    memo.remember(value, sink.out, written.value);
  return ok(sink.out);
}

/** Text for something a getter, proxy or toJSON threw; even its own conversion may throw. */
function describeThrown(caught: unknown): string {
  try {
    return caught instanceof Error ? caught.message : String(caught);
  } catch {
    return 'unprintable exception';
  }
}

function schemaError(message: string): CoreError {
  return coreError('BUNDLE_SCHEMA_INVALID', message);
}
