// The one rule on a member named `__proto__` for every reader of a request or a bundle (brief "edges", P336): the
// CBOR decoder and service-kit's JSON parser refuse it, so /verify, /verify/batch and the CLI refuse it too.
import { type PathSegment, renderPath } from './json-path.ts';

/**
 * The path of the first own member named `__proto__` in a parsed value, undefined when there is none. JSON.parse
 * keeps such a member as data, but the same text read by another parser (or merged carelessly downstream) sets a
 * prototype instead; a verdict that depends on which reader ran has no single meaning, so the member is refused.
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
      path.push(key);
      if (key === '__proto__') return true;
      if (visit((node as Record<string, unknown>)[key], depth + 1)) return true;
      path.pop();
    }
    return false;
  };
  return visit(value, 0) ? renderPath(path) : undefined;
}

/** The refusal's text, the same from every reader. */
export const prototypeMemberMessage = (path: string): string =>
  `member name "__proto__" at ${path} is refused: a parser would read it as the object's prototype`;
