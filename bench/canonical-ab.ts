// The canonicaliser alone, as the V2 engine runs it (issue 14, P118): each part's dcp-jcs-v1 bytes through
// one memo (manifest, the four payloads, the audit entries, the checkpoint bodies), then the bundle's
// SHA-256 streamed with the parts spliced in; for several separate copies of packages/core in one process,
// alternating (order rotated, and reversed every other round), on the builder's bundles as JSON.parse and
// as the service's CBOR decoder return them. Every side must give the same digest. Ratios are against the
// first side; give a second copy of the first as a control (a separate copy: P108).
// Usage: SIDES=main=/tmp/a,this=.,control=/tmp/b [ROUNDS=8] [ONLY=elevated] pnpm exec node bench/canonical-ab.ts
//   (each path is a checkout root holding packages/core/src/index.ts)
import { resolve } from 'node:path';
import { buildSignedBundle, selectCryptoBackend } from '@proto/core';
import { decodeCbor, encodeCbor } from '@proto/service-kit/cbor';
import { ENGINE_CASES } from './engine-cases.ts';
import { ownCpuMs } from './proc-stats.ts';

type Core = typeof import('@proto/core');
type Json = Record<string, unknown>;

const SIDES = process.env['SIDES'];
if (SIDES === undefined) throw new Error('set SIDES=label=root,label=root,…');
const ROUNDS = Number(process.env['ROUNDS'] ?? 8);
const ONLY = process.env['ONLY'];
const ARTIFACTS = ['responsible_principal_record', 'agent_passport', 'intent', 'policy_decision'];

const sides: { label: string; core: Core }[] = [];
for (const spec of SIDES.split(',')) {
  const [label = '', root = ''] = spec.split('=');
  const core = (await import(resolve(root, 'packages/core/src/index.ts'))) as Core;
  if (sides.some((s) => s.core === core)) throw new Error(`${label} loads another side's module instance`);
  sides.push({ label, core });
}

function canonicalWork(core: Core, signed: Json): string {
  const memo = core.canonicalMemoV2();
  const bundle = signed['bundle'] as Json;
  const bytes = (value: unknown, withMemo: boolean): void => {
    if (!core.canonicalBytesV2(value, withMemo ? memo : undefined).ok) throw new Error('no canonical form');
  };
  bytes(bundle['manifest'], true);
  for (const field of ARTIFACTS) bytes((bundle[field] as Json)['payload'], true);
  for (const entry of bundle['audit_entries'] as unknown[]) bytes(entry, true);
  for (const checkpoint of bundle['pq_checkpoints'] as Json[]) {
    const { composite_sig: _, ...body } = checkpoint;
    bytes(body, false);
  }
  const digest = core.hexDigestsCanonicalV2(['sha256'], { bundle, signature: signed['signature'] }, memo);
  if (!digest.ok) throw new Error(digest.error.message);
  return digest.value[0] as string;
}

const backend = selectCryptoBackend('auto');
for (const { name, options, runs, ab } of ENGINE_CASES) {
  if (ONLY === undefined ? !ab || options.version === '1.0' : !name.includes(ONLY)) continue;
  const request = { signed_bundle: buildSignedBundle({ ...options, backend }).signed_bundle };
  for (const wire of ['JSON', 'CBOR'] as const) {
    const read = (
      wire === 'JSON' ? JSON.parse(JSON.stringify(request)) : decodeCbor(encodeCbor(request))
    ) as Json;
    const signed = read['signed_bundle'] as Json;
    const expected = canonicalWork(sides[0]?.core as Core, signed);
    for (const side of sides) {
      for (let i = 0; i < 20; i++)
        if (canonicalWork(side.core, signed) !== expected) throw new Error(`${side.label} differs`);
    }
    const ms = sides.map(() => 0);
    for (let round = 0; round < ROUNDS; round++) {
      const order = sides.map((_, i) => (i + round) % sides.length);
      for (const i of round % 2 === 0 ? order : order.reverse()) {
        const core = sides[i]?.core as Core;
        const t0 = ownCpuMs();
        for (let k = 0; k < runs * 2; k++) canonicalWork(core, signed);
        ms[i] = (ms[i] ?? 0) + (ownCpuMs() - t0) / (runs * 2);
      }
    }
    const first = (ms[0] ?? 0) / ROUNDS;
    const cells = sides.map((s, i) => {
      const each = (ms[i] ?? 0) / ROUNDS;
      return `${s.label} ${(each * 1000).toFixed(1)} µs ×${(each / first).toFixed(3)}`;
    });
    console.log(`${name.padEnd(12)} ${wire}  ${cells.join('  ')}`);
  }
}
