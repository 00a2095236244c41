// Writes the Grafana dashboards of deploy/monitoring/grafana/dashboards/ (one per service and an overview) from the
// panel lists below: `pnpm exec node deploy/monitoring/build-dashboards.ts`. Issue 16 item 4; names: docs/operations.md.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
// Grafana's own dashboard model (generated from its CUE schema): `pnpm typecheck` fails on a field Grafana
// does not know or a value of the wrong type, so what we ship loads as a dashboard.
import type { Dashboard, Panel } from '@grafana/schema';

interface PanelSpec {
  readonly title: string;
  readonly exprs: readonly (readonly [expr: string, legend: string])[];
  readonly unit?: string;
  readonly type?: 'timeseries' | 'stat';
  readonly description?: string;
}

const DATASOURCE = { type: 'prometheus', uid: 'prometheus' } as const;

function panel(spec: PanelSpec, id: number): Panel {
  const type = spec.type ?? 'timeseries';
  // Two panels per row, 12 columns wide and 8 high.
  const gridPos = { h: 8, w: 12, x: ((id - 1) % 2) * 12, y: Math.floor((id - 1) / 2) * 8 };
  return {
    id,
    type,
    title: spec.title,
    ...(spec.description ? { description: spec.description } : {}),
    datasource: DATASOURCE,
    gridPos,
    fieldConfig: { defaults: { unit: spec.unit ?? 'short' }, overrides: [] },
    options:
      type === 'stat'
        ? { reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false }, colorMode: 'value' }
        : {
            legend: { displayMode: 'list', placement: 'bottom', showLegend: true },
            tooltip: { mode: 'multi' },
          },
    targets: spec.exprs.map(([expr, legendFormat], i) => ({
      refId: String.fromCharCode(65 + i),
      datasource: DATASOURCE,
      expr,
      legendFormat,
    })),
  };
}

function dashboard(uid: string, title: string, panels: readonly PanelSpec[]): Dashboard {
  return {
    uid,
    title,
    tags: ['signed-bundles'],
    timezone: 'browser',
    editable: true,
    schemaVersion: 39,
    version: 1,
    refresh: '30s',
    time: { from: 'now-6h', to: 'now' },
    templating: { list: [] },
    annotations: { list: [] },
    panels: panels.map((p, i) => panel(p, i + 1)),
  };
}

const rate = (metric: string, by: string) => `sum by (${by}) (rate(${metric}[5m]))`;
const p = (q: number, metric: string, by: string) =>
  `histogram_quantile(${q}, sum by (${by}, le) (rate(${metric}_bucket[5m])))`;

export const DASHBOARDS = {
  overview: dashboard('signed-bundles-overview', 'Signed Bundles: overview', [
    {
      title: 'Services up',
      type: 'stat',
      exprs: [['up{job=~"verification|anchor|transparency-log|revocation"}', '{{job}} {{instance}}']],
    },
    { title: 'Dependencies up', type: 'stat', exprs: [['proto_dependency_up', '{{job}} {{dependency}}']] },
    {
      title: 'Requests per second',
      unit: 'reqps',
      exprs: [[rate('proto_http_request_duration_seconds_count', 'job'), '{{job}}']],
    },
    {
      title: '5xx per second',
      unit: 'reqps',
      exprs: [[rate('proto_http_request_duration_seconds_count{status_code=~"5.."}', 'job'), '{{job}}']],
    },
    {
      title: 'Errors by code',
      unit: 'reqps',
      exprs: [[rate('proto_http_errors_total', 'job, code'), '{{job}} {{code}}']],
    },
    {
      title: 'Running versions',
      type: 'stat',
      exprs: [['proto_build_info', '{{service}} {{version}} {{commit}} ({{profile}})']],
    },
    {
      title: 'CPU',
      unit: 'percentunit',
      exprs: [['rate(process_cpu_seconds_total[5m])', '{{job}} {{instance}}']],
    },
    {
      title: 'Resident memory',
      unit: 'bytes',
      exprs: [['process_resident_memory_bytes', '{{job}} {{instance}}']],
    },
    {
      title: 'Event-loop lag p99',
      unit: 's',
      exprs: [['nodejs_eventloop_lag_p99_seconds', '{{job}} {{instance}}']],
    },
    { title: 'Open file descriptors', exprs: [['process_open_fds', '{{job}} {{instance}}']] },
  ]),
  verification: dashboard('signed-bundles-verification', 'Signed Bundles: verification', [
    {
      title: 'Verifications per second by tier',
      unit: 'reqps',
      exprs: [[rate('proto_verify_requests_total', 'tier'), '{{tier}}']],
    },
    {
      title: 'Latency p50 / p99 by tier',
      unit: 's',
      exprs: [
        [p(0.5, 'proto_verification_duration_seconds', 'tier'), 'p50 {{tier}}'],
        [p(0.99, 'proto_verification_duration_seconds', 'tier'), 'p99 {{tier}}'],
      ],
    },
    {
      title: 'Verdicts',
      unit: 'reqps',
      exprs: [[rate('proto_bundles_verified_total', 'result'), '{{result}}']],
    },
    {
      title: 'Errors by code',
      unit: 'reqps',
      exprs: [[rate('proto_verification_errors_total', 'code'), '{{code}}']],
    },
    {
      title: 'Worker pool queue',
      exprs: [
        ['proto_verify_pool_queue_depth', 'depth {{instance}}'],
        ['proto_verify_pool_queue_max', 'max {{instance}}'],
        ['proto_verify_pool_threads', 'threads {{instance}}'],
      ],
    },
    {
      title: 'Turned away (503 E702)',
      unit: 'reqps',
      exprs: [[rate('proto_verify_pool_rejected_total', 'instance'), '{{instance}}']],
    },
    {
      title: 'Cache hit ratio',
      unit: 'percentunit',
      exprs: [
        [
          'sum(rate(proto_verification_cache_hits_total[5m])) / (sum(rate(proto_verification_cache_hits_total[5m])) + sum(rate(proto_verification_cache_misses_total[5m])))',
          'hit ratio',
        ],
      ],
    },
    { title: 'Cache entries', exprs: [['proto_verification_cache_entries', '{{instance}}']] },
    {
      title: 'Revocation sources (1 = current state)',
      type: 'stat',
      exprs: [['proto_revocation_source_state == 1', '{{jurisdiction}}: {{state}}']],
    },
    {
      title: 'Since last good revocation fetch',
      unit: 's',
      exprs: [
        ['time() - proto_revocation_source_last_success_timestamp_seconds', '{{jurisdiction}} {{instance}}'],
      ],
    },
    {
      title: 'PQ checkpoints verified',
      unit: 'ops',
      exprs: [['sum(rate(proto_pq_checkpoints_verified_total[5m]))', 'checkpoints']],
    },
  ]),
  anchor: dashboard('signed-bundles-anchor', 'Signed Bundles: anchor', [
    {
      title: 'POST /anchor by result',
      unit: 'reqps',
      exprs: [[rate('proto_anchor_requests_total', 'chain, result'), '{{chain}} {{result}}']],
    },
    { title: 'Backlog (queued or unsent)', exprs: [['proto_anchor_backlog', '{{chain}}']] },
    {
      title: 'Oldest pending request',
      unit: 's',
      exprs: [['proto_anchor_oldest_pending_age_seconds', '{{chain}}']],
    },
    { title: 'Open requests', exprs: [['proto_anchor_open_requests', '{{chain}} {{state}}']] },
    {
      title: 'Batches by outcome',
      unit: 'ops',
      exprs: [[rate('proto_anchor_batches_total', 'chain, outcome'), '{{chain}} {{outcome}}']],
    },
    {
      title: 'Send failures and chain API errors',
      unit: 'ops',
      exprs: [
        [rate('proto_anchor_send_failures_total', 'chain, kind'), '{{chain}} {{kind}}'],
        [rate('proto_anchor_rpc_errors_total', 'chain'), '{{chain}} unreachable'],
      ],
    },
    { title: 'Wallet balance', exprs: [['proto_anchor_wallet_balance', '{{chain}} {{currency}}']] },
    {
      title: 'Dependencies (store, chains)',
      type: 'stat',
      exprs: [['proto_dependency_up{job="anchor"}', '{{dependency}}']],
    },
  ]),
  'transparency-log': dashboard('signed-bundles-transparency-log', 'Signed Bundles: transparency log', [
    {
      title: 'Tree size and signed size',
      exprs: [
        ['proto_tlog_tree_size', 'tree {{instance}}'],
        ['proto_tlog_signed_tree_size', 'signed {{instance}}'],
      ],
    },
    { title: 'Checkpoint age', unit: 's', exprs: [['proto_tlog_checkpoint_age_seconds', '{{instance}}']] },
    {
      title: 'Checkpoint failures',
      unit: 'ops',
      exprs: [[rate('proto_tlog_checkpoint_failures_total', 'instance'), '{{instance}}']],
    },
    {
      title: 'Appends by outcome',
      unit: 'ops',
      exprs: [[rate('proto_tlog_appends_total', 'outcome'), '{{outcome}}']],
    },
    {
      title: 'Batch commit p99',
      unit: 's',
      exprs: [[p(0.99, 'proto_tlog_batch_commit_seconds', 'instance'), '{{instance}}']],
    },
    {
      title: 'Pending appends and failed batches',
      exprs: [
        ['proto_tlog_pending_appends', 'pending {{instance}}'],
        ['increase(proto_tlog_batch_failures_total[5m])', 'failed batches {{instance}}'],
      ],
    },
    {
      title: 'Root anchoring failures (RootAnchorFailing)',
      exprs: [['increase(proto_log_root_anchor_failures_total[1h])', '{{reason}} {{instance}}']],
    },
  ]),
  revocation: dashboard('signed-bundles-revocation', 'Signed Bundles: revocation', [
    {
      title: 'Current list expires in',
      unit: 's',
      exprs: [['proto_revocation_list_next_update_timestamp_seconds - time()', '{{instance}}']],
    },
    {
      title: 'List number and entries',
      exprs: [
        ['proto_revocation_list_number', 'number'],
        ['proto_revocation_list_entries', 'entries'],
      ],
    },
    {
      title: 'Issue failures',
      unit: 'ops',
      exprs: [['increase(proto_revocation_list_issue_failures_total[15m])', '{{instance}}']],
    },
    {
      title: 'List responses by status',
      unit: 'reqps',
      exprs: [[rate('proto_revocation_list_responses_total', 'status'), '{{status}}']],
    },
    {
      title: 'Revocations and attestations',
      unit: 'ops',
      exprs: [
        ['sum(rate(proto_revocations_total[5m]))', 'revocations'],
        ['sum(rate(proto_attestations_issued_total[5m]))', 'attestations'],
      ],
    },
  ]),
} as const;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [name, board] of Object.entries(DASHBOARDS)) {
    const file = fileURLToPath(new URL(`grafana/dashboards/${name}.json`, import.meta.url));
    writeFileSync(file, `${JSON.stringify(board, null, 2)}\n`);
  }
}
