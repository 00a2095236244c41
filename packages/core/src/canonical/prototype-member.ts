// The one rule on member names that reach an object's prototype, for every reader of a request or a bundle (brief
// "edges", P336; brief "edges2", P381): a member named `__proto__`, or a member named `constructor` whose value is an
// object holding a member `prototype`. The CBOR decoder refuses the first; /verify, /verify/batch, service-kit's JSON
// and CBOR parsers and the CLI refuse both, with the same text.
import { type PathSegment, renderPath } from './json-path.ts';

/**
 * The path of the first such member in a parsed value, undefined when there is none: `…__proto__` for the first
 * kind, `…constructor.prototype` for the second. JSON.parse keeps either as data, but the same text read by another
 * parser (or merged carelessly downstream: `target[k1][k2] = v`) sets a prototype instead; a verdict that depends on
 * which reader ran has no single meaning, so the member is refused.
 */
export function prototypeMemberPath(value: unknown, maxDepth = 256): string | undefined {
  const path: PathSegment[] = [];
  const visit = (node: unknown, depth: number): boolean => {
    if (node === null || typeof node !== 'object' || depth > maxDepth) return false;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        path.push(i);
        if (visit(node[i], depth + 1)) return true;
        path.pop();
      }
      return false;
    }
    for (const key of Object.keys(node)) {
      const member = (node as Record<string, unknown>)[key];
      path.push(key);
      if (key === '__proto__') return true;
      if (key === 'constructor' && isObject(member) && Object.hasOwn(member, 'prototype')) {
        path.push('prototype');
        return true;
      }
      if (visit(member, depth + 1)) return true;
      path.pop();
    }
    return false;
  };
  return visit(value, 0) ? renderPath(path) : undefined;
}

const isObject = (value: unknown): value is object =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The refusal's text, the same from every reader. */
export const prototypeMemberMessage = (path: string): string =>
  path.endsWith('.__proto__')
    ? `member name "__proto__" at ${path} is refused: a parser would read it as the object's prototype`
    : `member "constructor.prototype" at ${path} is refused: a careless merge would write it to the object's prototype`;
