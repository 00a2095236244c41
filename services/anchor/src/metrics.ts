// The anchor service's alerting metrics: backlog and oldest pending request per chain, send failures, chain API
// errors, paying wallet balance. Issue 16 item 3; alert rules in deploy/monitoring/ read these names.
import type { ServiceMetrics } from '@proto/service-kit';
import type { AnchorRepository } from '@proto/store';
import type { ChainAdapter } from './adapters/types.ts';

export interface AnchorMetrics {
  /** The worker's batch outcome hook (sent, confirmed, failed, requeued, send_failed, unreachable, reorged, fee_bumped). */
  outcome(chain: string, outcome: string, count: number): void;
}

export function createAnchorMetrics(
  metrics: ServiceMetrics,
  repo: AnchorRepository,
  adapters: ReadonlyMap<string, ChainAdapter>,
): AnchorMetrics {
  const batches = metrics.counter('anchor_batches_total', 'Anchor batch outcomes per chain', [
    'chain',
    'outcome',
  ]);
  const sendFailures = metrics.counter(
    'anchor_send_failures_total',
    'Writes not sent: refused (for good) or transient (retried)',
    ['chain', 'kind'],
  );
  const rpcErrors = metrics.counter(
    'anchor_rpc_errors_total',
    "Passes or scrapes that found the chain's API unreachable",
    ['chain'],
  );
  metrics.gauge(
    'anchor_backlog',
    'Requests queued or in a batch not yet sent (bounded by ANCHOR_MAX_BACKLOG)',
    ['chain'],
    async (gauge) => {
      for (const chain of adapters.keys()) gauge.set({ chain }, await repo.backlog(chain));
    },
  );
  metrics.gauge(
    'anchor_oldest_pending_age_seconds',
    'Age of the oldest request not yet confirmed (0 when none)',
    ['chain'],
    async (gauge) => {
      for (const chain of adapters.keys()) {
        const oldest = await repo.oldestPending(chain);
        gauge.set(
          { chain },
          oldest === undefined ? 0 : Math.max(0, (Date.now() - Date.parse(oldest)) / 1000),
        );
      }
    },
  );
  metrics.gauge(
    'anchor_wallet_balance',
    'Balance of the paying wallet in whole coins (EVM and Bitcoin chains)',
    ['chain', 'currency'],
    async (gauge) => {
      gauge.reset();
      await Promise.all(
        [...adapters.values()].map(async (adapter) => {
          if (adapter.balance === undefined) return;
          try {
            const { currency, amount } = await adapter.balance();
            gauge.set({ chain: adapter.name, currency }, amount);
          } catch {
            // No sample rather than a false 0: the wallet-low alert must not fire on an RPC outage.
            rpcErrors.inc({ chain: adapter.name });
          }
        }),
      );
    },
  );
  return {
    outcome(chain, outcome, count) {
      if (outcome === 'send_failed') sendFailures.inc({ chain, kind: 'transient' });
      else if (outcome === 'unreachable') rpcErrors.inc({ chain });
      else {
        if (outcome === 'failed') sendFailures.inc({ chain, kind: 'refused' });
        batches.inc({ chain, outcome }, count);
      }
    },
  };
}
