// A piscina thread of POST /emergency-tokens (P539, P575): one verifier built once, then one registration per task.
// The task is the body's raw bytes (moved here, not copied: P576); they are read, checked against the route's
// schema, verified and judged by registrationFromBundle here, and only what the route answers or stores goes back.
// See emergency-threads.ts.
import { flushCompileCache } from 'node:module';
import { performance } from 'node:perf_hooks';
import { workerData } from 'node:worker_threads';
import { createVerifier } from '@proto/core/verifier';
import { registrationFromBundle } from './emergency.ts';
import { readRegistrationRequest } from './emergency-request.ts';
import type {
  EmergencyVerifyOutcome,
  EmergencyVerifyTask,
  EmergencyWorkerData,
} from './emergency-threads.ts';

// Every module of the thread is loaded by now: cache them (NODE_COMPILE_CACHE; see service-kit's run.ts).
flushCompileCache();

const setup = workerData as EmergencyWorkerData;
const built = createVerifier({ profile: setup.profile });
if (!built.ok) throw new Error(`emergency registration verifier: ${built.error.message}`);
const verifier = built.value;

export default function verifyRegistration(task: EmergencyVerifyTask): EmergencyVerifyOutcome {
  const started = performance.now();
  const request = readRegistrationRequest(task.body, task.format);
  if (!request.ok) {
    return { kind: 'bad_request', refusal: request, seconds: elapsed() };
  }
  const signedBundle = request.signedBundle;
  const analysis = verifier.analyze({ signed_bundle: signedBundle });
  const response = verifier.finalize(analysis, new Date(task.now));
  const first = response.error_details?.[0];
  return {
    kind: 'judged',
    registration: registrationFromBundle(signedBundle, analysis, response),
    ...(first === undefined ? {} : { firstError: { code: first.code, message: first.message } }),
    seconds: elapsed(),
  };

  function elapsed(): number {
    return (performance.now() - started) / 1000;
  }
}
