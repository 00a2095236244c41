// JSON paths for canonicalisation errors (`$.payload.metrics[2]["odd key"]`), so a rejected document names its culprit.
// DECISIONS D2 (a canonicalisation failure is a coded verification failure with a useful message).

export type PathSegment = string | number;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function renderPath(segments: readonly PathSegment[]): string {
  let out = '$';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) out += `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}
