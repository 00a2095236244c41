// P520: the confusables table in core is what scripts/generate-confusable-table.ts makes of unhomoglyph's data
// (confusables.txt 13.0.0), so no hand edit of the table goes unseen and the data's next version is one command away.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generatedTable, unhomoglyphData, withTable } from './generate-confusable-table.ts';

describe('P520: the generated confusables table', () => {
  it("packages/core's table equals the script's output", () => {
    const source = readFileSync(
      new URL('../packages/core/src/bundle/confusable-skeleton.ts', import.meta.url),
      'utf8',
    );
    expect(withTable(source, generatedTable(unhomoglyphData()))).toBe(source);
  });

  it('keeps only single letters of the listed scripts mapped to ASCII letters or digits', () => {
    const table = generatedTable({
      '\u0585': 'o',
      '\u0430': 'a',
      '\u4e00': 'l',
      '\u0431': '6',
      '\u03c2': 'ς',
      ab: 'x',
    });
    expect(table).toBe("  '430=a 431=6 585=o ' +");
  });
});
