// Minimal RFC 6902 JSON Patch (add, remove, replace) and a structural diff producing it: corpus
// cases are stored as small patches against shared base bundles to keep the committed corpus small.
import type { JsonObject } from '../types.ts';

export type PatchOp =
  | { readonly op: 'add' | 'replace'; readonly path: string; readonly value: unknown }
  | { readonly op: 'remove'; readonly path: string };

const escapeToken = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
const unescapeToken = (token: string) => token.replace(/~1/g, '/').replace(/~0/g, '~');

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Operations that turn `from` into `to` (objects member by member, equal-length arrays by index). */
export function diffJson(from: unknown, to: unknown, path = ''): PatchOp[] {
  if (JSON.stringify(from) === JSON.stringify(to)) return [];
  if (isObject(from) && isObject(to)) {
    const ops: PatchOp[] = [];
    for (const key of Object.keys(from)) {
      if (!Object.hasOwn(to, key)) ops.push({ op: 'remove', path: `${path}/${escapeToken(key)}` });
    }
    for (const [key, value] of Object.entries(to)) {
      const child = `${path}/${escapeToken(key)}`;
      if (!Object.hasOwn(from, key)) ops.push({ op: 'add', path: child, value });
      else ops.push(...diffJson(from[key], value, child));
    }
    return ops;
  }
  if (Array.isArray(from) && Array.isArray(to) && from.length === to.length) {
    return to.flatMap((value, i) => diffJson(from[i], value, `${path}/${i}`));
  }
  return [{ op: 'replace', path, value: to }];
}

/** Applies a patch to a deep copy of `document`; throws on a path that does not exist (bad fixture). */
export function applyPatch<T>(document: T, ops: readonly PatchOp[]): T {
  let root: unknown = structuredClone(document);
  for (const op of ops) {
    if (op.path === '') {
      if (op.op === 'remove') throw new Error('cannot remove the document root');
      root = structuredClone(op.value);
      continue;
    }
    const tokens = op.path.slice(1).split('/').map(unescapeToken);
    const last = tokens.pop() as string;
    let parent: unknown = root;
    for (const token of tokens) {
      parent = Array.isArray(parent) ? parent[Number(token)] : isObject(parent) ? parent[token] : undefined;
      if (parent === undefined) throw new Error(`patch path ${op.path} does not exist`);
    }
    if (Array.isArray(parent)) {
      const index = last === '-' ? parent.length : Number(last);
      if (op.op === 'add') parent.splice(index, 0, structuredClone(op.value));
      else if (op.op === 'remove') parent.splice(index, 1);
      else parent[index] = structuredClone(op.value);
    } else if (isObject(parent)) {
      if (op.op === 'remove') delete parent[last];
      else parent[last] = structuredClone(op.value);
    } else {
      throw new Error(`patch path ${op.path} does not exist`);
    }
  }
  return root as T;
}
