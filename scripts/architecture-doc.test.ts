// Keeps docs/architecture.md and the code's citations of it true: every "docs/architecture.md §n" names a section
// that exists, no comment cites the old out-of-repo "ARCHITECTURE §n", and every path the page names exists.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const PAGE = readFileSync(`${ROOT}docs/architecture.md`, 'utf8');
const SECTIONS = new Set([...PAGE.matchAll(/^## (\d+)\. /gm)].map((m) => Number(m[1])));

/** Tracked files whose text matches `pattern` (git grep: fast, and ignores node_modules). */
function grep(pattern: string): string[] {
  try {
    return execFileSync(
      'git',
      [
        'grep',
        '-n',
        '-E',
        pattern,
        '--',
        '.',
        ':!docs/architecture.md',
        ':!scripts/architecture-doc.test.ts',
      ],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    )
      .split('\n')
      .filter((line) => line !== '');
  } catch {
    return []; // git grep exits 1 when nothing matches
  }
}

describe('docs/architecture.md', () => {
  it('has numbered sections, and every citation names one of them', () => {
    expect([...SECTIONS].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const citations = grep('docs/architecture\\.md §[0-9]+');
    expect(citations.length).toBeGreaterThan(50);
    for (const line of citations) {
      for (const match of line.matchAll(/docs\/architecture\.md §(\d+)((?:, ?§\d+)*)/g)) {
        const cited = [match[1], ...(match[2] ?? '').split(/, ?§/).slice(1)].map(Number);
        for (const section of cited) expect(SECTIONS.has(section), line).toBe(true);
      }
    }
  });

  it('is the only architecture the code cites', () => {
    expect(grep('ARCHITECTURE(\\.md)? ?§')).toEqual([]);
  });

  it('names only paths that exist', () => {
    const paths = [...PAGE.matchAll(/`((?:packages|services|scripts|docker|deploy|schemas)\/[^`\s]*)`/g)].map(
      (m) => (m[1] as string).replace(/\/$/, ''),
    );
    expect(paths.length).toBeGreaterThan(10);
    for (const path of paths) expect(existsSync(`${ROOT}${path}`), path).toBe(true);
  });
});
