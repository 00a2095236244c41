// Canonical JSON in the browser, read as core reads it (packages/core/src/canonical): V2's dcp-jcs-v1 (RFC 8785 keys
// and strings, safe integers only) and V1's json-stable-stringify form (floats allowed). PROTOCOL §1.1, §1.2, D2.
// Where core has no canonical form for a value, neither does the page (P197): a hash the service cannot compute
// would tell a different story on the page than the service's verdict.

/** Deepest nesting of arrays and objects; the outermost container is depth 1 (core MAX_CANONICAL_DEPTH, D2). */
export const MAX_CANONICAL_DEPTH = 64;

/** A value with no canonical form under the rules asked for; `message` names the JSON path, as core's does. */
export class CanonicalRefusal extends Error {
  name = 'CanonicalRefusal';
}

const V2 = {
  name: 'dcp-jcs-v1',
  number(value) {
    if (!Number.isFinite(value))
      return { refused: `non-finite number ${value} is not allowed by dcp-jcs-v1` };
    if (!Number.isInteger(value))
      return { refused: `non-integer number ${value} is not allowed by dcp-jcs-v1` };
    // Beyond 2^53-1 a parsed integer may already have lost digits, and SDKs print it differently (PROTOCOL §1.1).
    if (!Number.isSafeInteger(value))
      return { refused: `unsafe integer ${value} is outside ±(2^53-1) and not allowed by dcp-jcs-v1` };
    return { text: String(value) };
  },
};

const V1 = {
  name: 'V1 canonical JSON',
  number(value) {
    if (!Number.isFinite(value))
      return { refused: `non-finite number ${value} is not allowed by V1 canonical JSON` };
    return { text: String(value) };
  },
};

/** dcp-jcs-v1 text of `value` (V2 hashes and signatures, revocation lists); throws CanonicalRefusal. */
export function canonicalize(value) {
  return serialize(value, V2);
}

/** V1 canonical text of `value` (V1 bundle and entry hashes); throws CanonicalRefusal. */
export function canonicalizeV1(value) {
  return serialize(value, V1);
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function renderPath(path) {
  let out = '$';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) out += `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

function isPlainObject(value) {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function serialize(value, rules) {
  const path = [];
  const fail = (what) => {
    throw new CanonicalRefusal(`${renderPath(path)}: ${what}`);
  };
  // JSON.stringify would write a lone surrogate as an escape; core has no form for it at all.
  const quote = (text, role) =>
    text.isWellFormed()
      ? JSON.stringify(text)
      : fail(`${role} contains a lone surrogate, not allowed by ${rules.name}`);

  const write = (node, depth) => {
    if (node === null) return 'null';
    switch (typeof node) {
      case 'boolean':
        return node ? 'true' : 'false';
      case 'string':
        return quote(node, 'string');
      case 'number': {
        const formatted = rules.number(node);
        return 'text' in formatted ? formatted.text : fail(formatted.refused);
      }
      case 'object':
        break;
      default:
        return fail(`${typeof node} is not allowed by ${rules.name}`);
    }
    // `depth` counts from 0 at the outermost container, as core's writer does.
    if (depth >= MAX_CANONICAL_DEPTH) fail(`nesting depth exceeds ${MAX_CANONICAL_DEPTH}`);
    if (Array.isArray(node)) {
      const items = [];
      for (let i = 0; i < node.length; i++) {
        path.push(i);
        items.push(node[i] === undefined ? 'null' : write(node[i], depth + 1));
        path.pop();
      }
      return `[${items.join(',')}]`;
    }
    if (!isPlainObject(node))
      fail(`object of type ${node.constructor?.name || 'object'} is not plain JSON data`);
    const members = [];
    // Array.prototype.sort compares UTF-16 code units, RFC 8785's order.
    for (const key of Object.keys(node).sort()) {
      if (node[key] === undefined) continue;
      path.push(key);
      members.push(`${quote(key, 'key')}:${write(node[key], depth + 1)}`);
      path.pop();
    }
    return `{${members.join(',')}}`;
  };

  if (value === undefined) throw new CanonicalRefusal('$: undefined has no JSON form');
  return write(value, 0);
}
