import { serialize } from 'node:v8';
import { buildSignedBundle, selectCryptoBackend } from '@proto/core';
import { loadVerificationConfig, portableVerifierOptions, VerifyPool } from '@proto/verification';
import { serviceTaskOf } from './floor-verifier-task.ts';
const config = loadVerificationConfig({ ...process.env, VERIFY_WORKERS: '1' });
const backend = selectCryptoBackend(portableVerifierOptions(config).backend);
const built = buildSignedBundle({ tier: 'elevated', entries: 10, backend } as never);
const bytes = new TextEncoder().encode(JSON.stringify({ signed_bundle: (built as any).signed_bundle }));
const pool = new VerifyPool({ threads: 1, minThreads: 1, idleTimeoutMs: 60000, maxQueue: 16, verifier: portableVerifierOptions(config) });
for (let i = 0; i < 3; i++) {
  const body = bytes.slice();
  const r: any = await pool.run(serviceTaskOf(body), [body.buffer]);
  const { answer, ...rest } = r;
  console.log(i, r.kind, 'answer bytes', answer?.bytes?.byteLength, 'rest clone', serialize(rest).length, 'summary', serialize(answer?.summary ?? {}).length);
  for (const k of Object.keys(rest)) console.log('  ', k, serialize(rest[k]).length);
}
await pool.close();
