// Cost of the strict JSON read (parseStrictJson) against plain JSON.parse on a ~400 KB maximum-tier
// /verify body: `pnpm exec node bench/strict-json.ts`. Issue 12 item 2 (the parse is on the hot path).
import { performance } from 'node:perf_hooks';
import { buildSignedBundle, parseStrictJson } from '@proto/core';

const ROUNDS = Number(process.env['ROUNDS'] ?? 100);
const signed = buildSignedBundle({ tier: 'maximum', entries: 60 }).signed_bundle;
const bodies = {
  compact: JSON.stringify({ signed_bundle: signed }),
  pretty: JSON.stringify({ signed_bundle: signed }, null, 2),
};

function timeMs(run: () => void): number {
  const start = performance.now();
  for (let i = 0; i < ROUNDS; i++) run();
  return (performance.now() - start) / ROUNDS;
}

/** Median of alternating trials: the machine is shared, so single runs swing by 2x. */
function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)]!;
}

for (const [name, text] of Object.entries(bodies)) {
  const parsePlain = () => JSON.parse(text);
  const parseStrict = () => {
    if (!parseStrictJson(text).ok) throw new Error('the sample bundle must parse');
  };
  const plainTrials: number[] = [];
  const strictTrials: number[] = [];
  timeMs(parsePlain);
  timeMs(parseStrict);
  for (let trial = 0; trial < 7; trial++) {
    plainTrials.push(timeMs(parsePlain));
    strictTrials.push(timeMs(parseStrict));
  }
  const plain = median(plainTrials);
  const strict = median(strictTrials);
  console.log(
    `${name} ${(text.length / 1024).toFixed(0)} KiB: JSON.parse ${plain.toFixed(3)} ms, parseStrictJson ${strict.toFixed(3)} ms (+${(strict - plain).toFixed(3)} ms, x${(strict / plain).toFixed(2)})`,
  );
}
