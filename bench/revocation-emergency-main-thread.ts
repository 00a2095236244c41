// Main-thread CPU per POST /emergency-tokens of the revocation service (P576): the service started as it runs in
// production, REQUESTS maximum-size registrations (about 950 KB each, 150 PQ checkpoints) sent one at a time, and
// the utime+stime of the service's main thread (/proc/PID/task/PID/stat) read before and after. Not a test: the
// figure depends on the machine. `pnpm exec node bench/revocation-emergency-main-thread.ts [requests]`.
import { createHash, randomBytes } from 'node:crypto';
import { buildSignedBundle } from '@proto/core';
import { launchService, serviceMain, THIS_CHECKOUT } from './launch-service.ts';
import { cpuTimeMs, threadCpuTimeMs } from './proc-stats.ts';

const REQUESTS = Number(process.argv[2] ?? 20);
const WARM_UP = 3;

const body = JSON.stringify({
  signed_bundle: buildSignedBundle({
    tier: 'maximum',
    entries: 150,
    // PROTOCOL §9.5: the passport's token is `sha256:` of the secret's 32 bytes.
    emergencyRevocationToken: `sha256:${createHash('sha256').update(randomBytes(32)).digest('hex')}`,
  }).signed_bundle,
});

const service = await launchService({
  entry: serviceMain(THIS_CHECKOUT, 'revocation'),
  name: 'the revocation service',
  env: {
    LOG_LEVEL: 'warn',
    JURISDICTION: 'US',
    EMERGENCY_REGISTRATION: 'bundle',
    EMERGENCY_REGISTRATIONS_PER_IP: '100000',
    OPERATOR_TOKEN: 'bench-operator-token-0123456789',
  },
});

async function register(): Promise<number> {
  const answer = await fetch(`${service.url}/emergency-tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  await answer.arrayBuffer();
  return answer.status;
}

try {
  // The thread's start and the first compilations are not what is measured.
  for (let i = 0; i < WARM_UP; i++) await register();
  const mainBefore = threadCpuTimeMs(service.pid, service.pid);
  const allBefore = cpuTimeMs(service.pid);
  const statuses = new Set<number>();
  for (let i = 0; i < REQUESTS; i++) statuses.add(await register());
  const mainMs = (threadCpuTimeMs(service.pid, service.pid) - mainBefore) / REQUESTS;
  const allMs = (cpuTimeMs(service.pid) - allBefore) / REQUESTS;
  console.log(
    JSON.stringify({
      requests: REQUESTS,
      body_bytes: body.length,
      statuses: [...statuses],
      main_thread_cpu_ms_per_request: Number(mainMs.toFixed(1)),
      process_cpu_ms_per_request: Number(allMs.toFixed(1)),
    }),
  );
} finally {
  await service.stop();
}
