// Cost of the strict JSON read (parseStrictJson) against plain JSON.parse on a ~400 KB maximum-tier
// /verify body: `pnpm exec node bench/strict-json.ts`. Issue 12 item 2 (the parse is on the hot path).
import { performance } from 'node:perf_hooks';
import { buildSignedBundle, parseStrictJson } from '@proto/core';

const ROUNDS = Number(process.env['ROUNDS'] ?? 300);
const signed = buildSignedBundle({ tier: 'maximum', entries: 60 }).signed_bundle;
const bodies = {
  compact: JSON.stringify({ signed_bundle: signed }),
  pretty: JSON.stringify({ signed_bundle: signed }, null, 2),
};

function timeMs(run: () => void): number {
  for (let i = 0; i < 30; i++) run();
  const start = performance.now();
  for (let i = 0; i < ROUNDS; i++) run();
  return (performance.now() - start) / ROUNDS;
}

for (const [name, text] of Object.entries(bodies)) {
  const plain = timeMs(() => JSON.parse(text));
  const strict = timeMs(() => {
    if (!parseStrictJson(text).ok) throw new Error('the sample bundle must parse');
  });
  console.log(
    `${name} ${(text.length / 1024).toFixed(0)} KiB: JSON.parse ${plain.toFixed(3)} ms, parseStrictJson ${strict.toFixed(3)} ms (+${(strict - plain).toFixed(3)} ms, x${(strict / plain).toFixed(2)})`,
  );
}
