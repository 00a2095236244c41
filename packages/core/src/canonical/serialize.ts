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

/**
 * Canonical texts of containers already written under one set of rules, by object identity, so that
 * a value holding them (the whole V2 bundle around its payloads) is not serialised twice. Scope one
 * to a single verification: it is only as true as the objects are unchanged since they were written.
 * Each entry keeps the container's height (its deepest nested container, the container itself
 * being 0), so reusing it deeper in a larger value still enforces MAX_CANONICAL_DEPTH exactly.
 */
export class CanonicalMemo {
  readonly rules: CanonicalRules;
  private readonly entries = new Map<object, { readonly text: string; readonly height: number }>();

  constructor(rules: CanonicalRules) {
    // A toJSON result is not the object it came from, so identity would name the wrong text.
    if (rules.honourToJSON) throw new TypeError('a canonical memo cannot serve rules that call toJSON');
    this.rules = rules;
  }

  /** The text of `container` when it can be reused at `depth` (its deepest part stays within the limit). */
  reusable(container: object, depth: number): { readonly text: string; readonly height: number } | undefined {
    const entry = this.entries.get(container);
    return entry !== undefined && depth + entry.height < MAX_CANONICAL_DEPTH ? entry : undefined;
  }

  remember(container: object, text: string, height: number): void {
    this.entries.set(container, { text, height });
  }
}

/** Internal signal carrying a path-qualified message; never escapes `serializeCanonical`. */
class CanonicalFailure {
  readonly message: string;
  constructor(message: string) {
    this.message = message;
  }
}

/** A lone (unpaired) surrogate: with the `u` flag, paired surrogates read as one astral code point. */
const LONE_SURROGATE = /\p{Cs}/u;

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
 * Canonical text of `value` under `rules`. Never throws: failures of the input itself (getters,
 * proxies, toJSON methods that throw, strings too long for the engine) become errors too.
 */
export function serializeCanonical(
  value: unknown,
  rules: CanonicalRules,
  memo?: CanonicalMemo,
): Result<string> {
  if (memo !== undefined && memo.rules !== rules) throw new TypeError('canonical memo of other rules');
  const path: PathSegment[] = [];
  const ancestors = new Set<object>();
  /** Depth of the deepest container met so far (the root container is at 0). */
  let deepest = -1;

  const fail = (what: string): never => {
    throw new CanonicalFailure(`${renderPath(path)}: ${what}`);
  };

  const checkString = (text: string, role: 'string' | 'key'): void => {
    if (LONE_SURROGATE.test(text)) fail(`${role} contains a lone surrogate, not allowed by ${rules.name}`);
  };

  // Returns undefined only for an `undefined` value, which the container decides how to render.
  const write = (input: unknown, depth: number): string | undefined => {
    let node = input;
    if (rules.honourToJSON && typeof node === 'object' && node !== null) {
      const toJSON: unknown = (node as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') node = (toJSON as () => unknown).call(node);
    }
    switch (typeof node) {
      case 'undefined':
        return undefined;
      case 'boolean':
        return node ? 'true' : 'false';
      case 'string':
        checkString(node, 'string');
        return JSON.stringify(node);
      case 'number': {
        const formatted = rules.formatNumber(node);
        return 'text' in formatted ? formatted.text : fail(formatted.refused);
      }
      case 'bigint':
        return fail(`bigint ${node} is not allowed by ${rules.name}`);
      case 'symbol':
        return fail(`symbol is not allowed by ${rules.name}`);
      case 'function':
        return fail(`function is not allowed by ${rules.name}`);
      default:
        break;
    }
    if (node === null) return 'null';
    const container = node as object;
    const known = memo?.reusable(container, depth);
    if (known !== undefined) {
      if (depth + known.height > deepest) deepest = depth + known.height;
      return known.text;
    }
    if (depth > deepest) deepest = depth;
    if (depth >= MAX_CANONICAL_DEPTH) fail(`nesting depth exceeds ${MAX_CANONICAL_DEPTH}`);
    if (ancestors.has(container)) fail('cycle: the value contains itself');
    ancestors.add(container);
    let text: string;
    if (Array.isArray(container)) {
      const items = container as readonly unknown[];
      const length = items.length;
      text = '[';
      for (let i = 0; i < length; i++) {
        path.push(i);
        // Holes and undefined slots render as null (PROTOCOL §1.1 rule 6).
        const item = write(items[i], depth + 1);
        path.pop();
        text += (i === 0 ? '' : ',') + (item ?? 'null');
      }
      text += ']';
    } else if (isPlainObject(container)) {
      const record = container as Readonly<Record<string, unknown>>;
      // Default sort compares UTF-16 code units, as RFC 8785 and the TS SDK do (rule 1, D2).
      const keys = Object.keys(record).sort();
      text = '{';
      let first = true;
      for (const key of keys) {
        path.push(key);
        checkString(key, 'key');
        const member = write(record[key], depth + 1);
        path.pop();
        if (member === undefined) continue; // undefined members are omitted (rule 6)
        text += (first ? '' : ',') + JSON.stringify(key) + ':' + member;
        first = false;
      }
      text += '}';
    } else {
      return fail(`${describeObject(container)} is not plain JSON data`);
    }
    ancestors.delete(container);
    return text;
  };

  try {
    const text = write(value, 0);
    if (text === undefined) return err(schemaError(`$: undefined has no JSON form`));
    if (memo !== undefined && typeof value === 'object' && value !== null)
      memo.remember(value, text, deepest);
    return ok(text);
  } catch (caught) {
    if (caught instanceof CanonicalFailure) return err(schemaError(caught.message));
    return err(schemaError(`${renderPath(path)}: value could not be read (${describeThrown(caught)})`));
  }
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
