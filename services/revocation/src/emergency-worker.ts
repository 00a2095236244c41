// A thread of POST /emergency-tokens (P539): one verifier built once, then one registering bundle per message,
// answered with only what registrationFromBundle and the route's refusal read. See emergency-threads.ts.
import { flushCompileCache } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { createVerifier } from '@proto/core/verifier';
import type { EmergencyVerifyResult, EmergencyVerifyTask, EmergencyWorkerData } from './emergency-threads.ts';

// Every module of the thread is loaded by now: cache them (NODE_COMPILE_CACHE; see service-kit's run.ts).
flushCompileCache();

const setup = workerData as EmergencyWorkerData;
const built = createVerifier({ profile: setup.profile });
if (!built.ok) throw new Error(`emergency registration verifier: ${built.error.message}`);
const verifier = built.value;
const port = parentPort;
if (port === null) throw new Error('emergency-worker.ts runs as a worker thread only');

port.on('message', (task: EmergencyVerifyTask) => {
  const analysis = verifier.analyze({ signed_bundle: task.signed_bundle });
  const response = verifier.finalize(analysis, new Date(task.now));
  const first = response.error_details?.[0];
  const result: EmergencyVerifyResult = {
    analysis: {
      signerKids: analysis.signerKids,
      ...(analysis.agentId === undefined ? {} : { agentId: analysis.agentId }),
      ...(analysis.jurisdiction === undefined ? {} : { jurisdiction: analysis.jurisdiction }),
      ...(analysis.rprHash === undefined ? {} : { rprHash: analysis.rprHash }),
    },
    response: {
      verified: response.verified,
      version: response.version,
      ...(first === undefined ? {} : { error_details: [first] }),
    },
  };
  port.postMessage(result);
});
