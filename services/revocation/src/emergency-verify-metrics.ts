// The metrics of POST /emergency-tokens' verification threads (P577): how many registrations wait and run, how many
// were turned away with 503 because the queue was full, how many threads died under a task, and how long a task takes
// on its thread. The EmergencyVerifyQueueFull alert (deploy/monitoring/rules) reads the first three; docs/operations.md.
import type { ServiceMetrics } from '@proto/service-kit';
import { EmergencyVerifyThreads, type EmergencyVerifyThreadsOptions } from './emergency-threads.ts';

/** The verification threads, with their metrics registered on the service's registry. */
export function instrumentedVerifyThreads(
  metrics: ServiceMetrics,
  options: Omit<EmergencyVerifyThreadsOptions, 'onDone'>,
): EmergencyVerifyThreads {
  const duration = metrics.histogram(
    'emergency_verify_duration_seconds',
    'Time one POST /emergency-tokens registration spends on its verification thread (read, check, verify)',
  );
  const threads = new EmergencyVerifyThreads({ ...options, onDone: (seconds) => duration.observe(seconds) });
  metrics.gauge(
    'emergency_verify_queue_depth',
    'POST /emergency-tokens registrations waiting for a verification thread',
    [],
    (gauge) => gauge.set(threads.queueDepth),
  );
  metrics.gauge(
    'emergency_verify_queue_max',
    'EMERGENCY_VERIFY_QUEUE_MAX: registrations that may wait; beyond, 503 PROTO-E702',
    [],
    (gauge) => gauge.set(threads.maxQueue),
  );
  metrics.gauge(
    'emergency_verify_running',
    'POST /emergency-tokens registrations being verified on a thread',
    [],
    (gauge) => gauge.set(threads.running),
  );
  metrics.counter(
    'emergency_verify_rejected_total',
    'POST /emergency-tokens registrations answered 503 PROTO-E702: every verification thread busy, the queue full',
    [],
    (counter) => {
      counter.reset();
      counter.inc(threads.rejected);
    },
  );
  metrics.counter(
    'emergency_verify_thread_failures_total',
    'Verification threads of POST /emergency-tokens that stopped with an error (a registration on one is answered 500)',
    [],
    (counter) => {
      counter.reset();
      counter.inc(threads.threadFailures);
    },
  );
  return threads;
}
