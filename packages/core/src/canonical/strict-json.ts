// Strict JSON reading: text that has no single dcp-jcs-v1 reading (duplicate member names, numbers with
// no finite value, lone surrogates, absurd nesting) is refused instead of silently resolved. Issue 12 item 2, D2.
import { coreError, err, ok, type Result } from '../result.ts';
import { type PathSegment, renderPath } from './json-path.ts';

/** Deepest nesting a strictly parsed document may have (a /verify request wraps a 64-deep bundle, D2). */
export const MAX_STRICT_JSON_DEPTH = 128;

/** `String.prototype.isWellFormed` is ES2024 (Node ≥ 20); the project's lib is ES2023. */
const isWellFormed = (text: string): boolean =>
  (text as unknown as { isWellFormed(): boolean }).isWellFormed();

/** Internal signal carrying a path-qualified message; never escapes `parseStrictJson`. */
class StrictJsonFailure {
  readonly message: string;
  constructor(message: string) {
    this.message = message;
  }
}

/**
 * Parses JSON text and refuses what JSON.parse would resolve silently: a member name twice in one
 * object (JSON.parse keeps the last, other parsers the first), a number that overflows to ±Infinity
 * (`1e400`), a number read as an integer it does not denote exactly (`2.9999999999999999999`,
 * `1e-400`: P150), a string or member name with a lone surrogate (`"\ud800"`), nesting deeper than
 * `maxDepth`. Fractions and unsafe integers are left to the version's canonical form (V1 allows
 * floats). Errors are `BUNDLE_SCHEMA_INVALID` with a JSON path. Never throws.
 */
export function parseStrictJson(text: string, maxDepth = MAX_STRICT_JSON_DEPTH): Result<unknown> {
  if (text.trim() === '') return err(coreError('BUNDLE_SCHEMA_INVALID', 'JSON text is empty'));
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // V8 parses iteratively; a RangeError can still come from a string too long for the engine.
    const reason = error instanceof Error ? error.message : 'unparseable';
    return err(coreError('BUNDLE_SCHEMA_INVALID', `invalid JSON: ${reason}`));
  }
  return checkParsedJson(text, value, maxDepth);
}

/**
 * The strict checks on a value JSON.parse just read from `text` (for callers that parse themselves
 * to keep their own syntax messages): returns the value, or the reason it has no single reading.
 */
export function checkParsedJson(
  text: string,
  value: unknown,
  maxDepth = MAX_STRICT_JSON_DEPTH,
): Result<unknown> {
  let members = countCleanMembers(value, 1, maxDepth);
  try {
    // The fast walk only says "something is wrong"; the slow one says what and where.
    if (members < 0) members = checkValues(value, maxDepth);
  } catch (caught) {
    const message = caught instanceof StrictJsonFailure ? caught.message : '$: value could not be checked';
    return err(coreError('BUNDLE_SCHEMA_INVALID', message));
  }
  // JSON.parse creates one own property per distinct name, so fewer properties than member names in
  // the text means some object repeated a name. Counting is cheap; locating the culprit is not, so
  // that only runs when the counts differ.
  const names = countMemberNames(text);
  if (names < 0) return err(coreError('BUNDLE_SCHEMA_INVALID', describeInexactNumber(text)));
  if (members !== names) {
    return err(coreError('BUNDLE_SCHEMA_INVALID', describeDuplicate(text)));
  }
  return ok(value);
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** `parseStrictJson` over UTF-8 bytes; invalid UTF-8 (which could hide a surrogate) is refused too. */
export function parseStrictJsonBytes(bytes: Uint8Array, maxDepth = MAX_STRICT_JSON_DEPTH): Result<unknown> {
  let text: string;
  try {
    text = STRICT_UTF8.decode(bytes);
  } catch {
    return err(coreError('BUNDLE_SCHEMA_INVALID', 'JSON text is not valid UTF-8'));
  }
  return parseStrictJson(text, maxDepth);
}

/**
 * The hot path: own properties of all objects in `node`, or -1 when a number is not finite, a string
 * or name holds a lone surrogate, or a container sits deeper than `maxDepth` (outermost = 1).
 */
function countCleanMembers(node: unknown, depth: number, maxDepth: number): number {
  if (typeof node === 'string') return isWellFormed(node) ? 0 : -1;
  if (typeof node === 'number') return Number.isFinite(node) ? 0 : -1;
  if (node === null || typeof node !== 'object') return 0;
  if (depth > maxDepth) return -1;
  let members = 0;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const inner = countCleanMembers(node[i], depth + 1, maxDepth);
      if (inner < 0) return -1;
      members += inner;
    }
    return members;
  }
  const record = node as Record<string, unknown>;
  const keys = Object.keys(record); // own names only, whatever Object.prototype holds
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (!isWellFormed(key)) return -1;
    const inner = countCleanMembers(record[key], depth + 1, maxDepth);
    if (inner < 0) return -1;
    members += inner + 1;
  }
  return members;
}

/**
 * Walks a freshly parsed value: fails on non-finite numbers, lone surrogates and excess depth;
 * returns how many own properties all its objects hold together.
 */
function checkValues(root: unknown, maxDepth: number): number {
  const path: PathSegment[] = [];
  let members = 0;
  const fail = (what: string): never => {
    throw new StrictJsonFailure(`${renderPath(path)}: ${what}`);
  };
  const visit = (node: unknown, depth: number): void => {
    if (typeof node === 'string') {
      if (!isWellFormed(node)) fail('string contains a lone surrogate, which has no dcp-jcs-v1 form');
      return;
    }
    if (typeof node === 'number') {
      if (!Number.isFinite(node)) fail('number has no finite value, which has no dcp-jcs-v1 form');
      return;
    }
    if (node === null || typeof node !== 'object') return;
    if (depth >= maxDepth) fail(`nesting depth exceeds ${maxDepth}`);
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        path.push(i);
        visit(node[i], depth + 1);
        path.pop();
      }
      return;
    }
    const record = node as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      members++;
      path.push(key);
      if (!isWellFormed(key)) fail('member name contains a lone surrogate, which has no dcp-jcs-v1 form');
      visit(record[key], depth + 1);
      path.pop();
    }
  };
  visit(root, 0);
  return members;
}

const BACKSLASH = 0x5c;
const COLON = 0x3a;

/** Index of the quote closing the string whose opening quote is at `open` (text is valid JSON). */
function closingQuote(text: string, open: number): number {
  let from = open + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote === -1) return text.length; // unreachable for valid JSON
    let before = quote - 1;
    while (text.charCodeAt(before) === BACKSLASH) before--;
    // An even run of backslashes escapes only itself, so the quote ends the string.
    if ((quote - 1 - before) % 2 === 0) return quote;
    from = quote + 1;
  }
}

function skipWhitespace(text: string, from: number): number {
  let i = from;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
}

/**
 * Member names in valid JSON text: strings followed by a colon. Outside strings no structural
 * character is a quote, so jumping from string to string never loses sync. The text between strings
 * is where the numbers are: -1 when one of them is not exactly the integer it is read as (P150).
 */
function countMemberNames(text: string): number {
  let count = 0;
  let open = text.indexOf('"');
  if (!numbersExact(text, 0, open === -1 ? text.length : open)) return -1;
  while (open !== -1) {
    const next = skipWhitespace(text, closingQuote(text, open) + 1);
    if (text.charCodeAt(next) === COLON) count++;
    open = text.indexOf('"', next);
    if (!numbersExact(text, next, open === -1 ? text.length : open)) return -1;
  }
  return count;
}

/** Whether a character starts a JSON number token (the `e` of `true` and `false` does not). */
function startsNumber(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2d;
}

/** Whether a character continues a JSON number token. */
function isNumberChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45;
}

/** Every number token in text[from, to) (no string there) is exact; see `inexactInteger`. */
function numbersExact(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    if (!startsNumber(text.charCodeAt(i))) continue;
    let end = i + 1;
    while (end < to && isNumberChar(text.charCodeAt(end))) end++;
    if (inexactInteger(text.slice(i, end)) !== undefined) return false;
    i = end;
  }
  return true;
}

/** A plain integer token this short is always exactly its double (|n| < 10^15 < 2^53). */
const EXACT_DIGITS = 15;

/**
 * The integer JSON.parse reads `token` as, when the token does not denote exactly that integer; else
 * undefined. `2.9999999999999999999` reads as 3 and `1e-400` as 0: the signature covers 3 and 0 (the
 * canonical form of the parsed value), a reader of exact decimals sees a fraction where D15 allows none
 * or a non-zero value. Non-integers are left alone: V1 carries floats, and any float text is rounded.
 */
export function inexactInteger(token: string): string | undefined {
  const digits = token.charCodeAt(0) === 0x2d ? token.length - 1 : token.length;
  if (digits <= EXACT_DIGITS && !/[.eE]/.test(token)) return undefined;
  const value = Number(token);
  if (!Number.isInteger(value)) return undefined;
  const read = String(value);
  return sameDecimal(token, read) ? undefined : read;
}

/** Two decimal numerals (JSON or JavaScript's String(number)) denote the same number. */
function sameDecimal(a: string, b: string): boolean {
  const x = decimalParts(a);
  const y = decimalParts(b);
  if (x.digits === '' || y.digits === '') return x.digits === y.digits; // zero is zero, -0 too
  return x.negative === y.negative && x.digits === y.digits && x.exponent === y.exponent;
}

/** A numeral as sign, significant digits (no leading or trailing zeros) and the power of ten of the last. */
function decimalParts(numeral: string): { negative: boolean; digits: string; exponent: number } {
  const match = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(numeral);
  if (match === null) return { negative: false, digits: 'NaN', exponent: 0 };
  const fraction = match[3] ?? '';
  let digits = (match[2] ?? '') + fraction;
  // An exponent beyond the safe integers stands for no finite double anyway; it is compared as read.
  let exponent = Number(match[4] ?? '0') - fraction.length;
  const lead = /^0*/.exec(digits)![0].length;
  digits = digits.slice(lead);
  // Counted from the end: /0*$/ tried every position and backtracked over each run of zeros, quadratic in a
  // number's text (P226: `1` + 60,000 zeros + `1e-99999` held the event loop for seconds).
  let end = digits.length;
  while (end > 0 && digits.charCodeAt(end - 1) === 0x30) end--;
  const trail = digits.length - end;
  digits = digits.slice(0, end);
  exponent += trail;
  return { negative: match[1] === '-', digits, exponent };
}

interface ObjectFrame {
  readonly names: Set<string>;
  current: string | undefined;
}
interface ArrayFrame {
  index: number;
}

/** What a slow-path walk looks for: a message for the first offending member name or number, else undefined. */
interface JsonTextVisitor {
  /** A member name of the innermost object, before it is added to `earlier` (that object's names so far). */
  name?(name: string, earlier: ReadonlySet<string>, path: () => PathSegment[]): string | undefined;
  /** A number token. */
  number?(token: string, path: () => PathSegment[]): string | undefined;
}

/**
 * Walks valid JSON text keeping the JSON path of where it is, for the slow paths that name the culprit once a
 * cheap count found one. Escapes in names are decoded: "agent_id" and "agent\u005fid" are the same name.
 */
function findInJsonText(text: string, visitor: JsonTextVisitor): string | undefined {
  const stack: (ObjectFrame | ArrayFrame)[] = [];
  const pathOf = (): PathSegment[] =>
    stack.map((frame) => ('names' in frame ? (frame.current ?? '') : frame.index));
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '{') stack.push({ names: new Set(), current: undefined });
    else if (c === '[') stack.push({ index: 0 });
    else if (c === '}' || c === ']') stack.pop();
    else if (c === ',') {
      const top = stack.at(-1);
      if (top !== undefined && 'index' in top) top.index++;
    } else if (c === '"') {
      const end = closingQuote(text, i);
      const next = skipWhitespace(text, end + 1);
      const top = stack.at(-1);
      if (text.charCodeAt(next) === COLON && top !== undefined && 'names' in top) {
        const name = JSON.parse(text.slice(i, end + 1)) as string;
        const found = visitor.name?.(name, top.names, pathOf);
        if (found !== undefined) return found;
        top.names.add(name);
        top.current = name;
      }
      i = end;
    } else if (startsNumber(text.charCodeAt(i))) {
      let end = i + 1;
      while (end < text.length && isNumberChar(text.charCodeAt(end))) end++;
      const found = visitor.number?.(text.slice(i, end), pathOf);
      if (found !== undefined) return found;
      i = end - 1;
    }
  }
  return undefined;
}

/** The slow path: the first number that is not exactly its integer, and its path (text is valid JSON). */
function describeInexactNumber(text: string): string {
  const found = findInJsonText(text, {
    number(token, path) {
      const read = inexactInteger(token);
      if (read === undefined) return undefined;
      return `${renderPath(path())}: number ${token.length > 40 ? `${token.slice(0, 40)}…` : token} is not exactly the integer ${read} it is read as, so it has no single dcp-jcs-v1 reading`;
    },
  });
  return (
    found ?? '$: a number is not exactly the integer it is read as, so it has no single dcp-jcs-v1 reading'
  );
}

/** The slow path: finds the first repeated member name and its path (text is valid JSON). */
function describeDuplicate(text: string): string {
  const found = findInJsonText(text, {
    name(name, earlier, path) {
      if (!earlier.has(name)) return undefined;
      const where = renderPath(path().slice(0, -1));
      return `${where}: member name ${JSON.stringify(name)} appears twice in one object; JSON with duplicate names has no dcp-jcs-v1 form`;
    },
  });
  return (
    found ?? '$: a member name appears twice in one object; JSON with duplicate names has no dcp-jcs-v1 form'
  );
}
