// The benches' copy of the image's Node settings must be the image's: a bench that ran the services
// with other flags would measure a service nobody deploys.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { IMAGE_NODE_OPTIONS } from './image-env.ts';

const DOCKERFILE = new URL('../docker/Dockerfile', import.meta.url);

/** Every `KEY=value` of the Dockerfile's `ENV` instructions, continuation lines joined, in file order. */
function envSettings(dockerfile: string): [string, string][] {
  const instructions = dockerfile
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .filter((line) => !line.trimStart().startsWith('#'));
  const settings: [string, string][] = [];
  for (const line of instructions) {
    const match = /^\s*ENV\s+(.*)$/i.exec(line);
    if (match === null) continue;
    for (const token of match[1]!.match(/\S+="[^"]*"|\S+/g) ?? []) {
      const eq = token.indexOf('=');
      if (eq <= 0) throw new Error(`ENV form without "=" is not read here: ${line}`);
      settings.push([token.slice(0, eq), token.slice(eq + 1).replace(/^"(.*)"$/, '$1')]);
    }
  }
  return settings;
}

describe("the benches' copy of the image's settings", () => {
  it('reads ENV settings across continuation lines, quoted or not', () => {
    expect(
      envSettings('FROM x\n# ENV A=commented\nENV A=1 \\\n    B="two words" \\\n    C=3\nENV D=4\n'),
    ).toEqual([
      ['A', '1'],
      ['B', 'two words'],
      ['C', '3'],
      ['D', '4'],
    ]);
  });

  it("is docker/Dockerfile's NODE_OPTIONS, set there once", () => {
    const set = envSettings(readFileSync(DOCKERFILE, 'utf8')).filter(([key]) => key === 'NODE_OPTIONS');
    expect(set).toEqual([['NODE_OPTIONS', IMAGE_NODE_OPTIONS]]);
  });
});
