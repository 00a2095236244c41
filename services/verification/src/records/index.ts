// Public API of the /v2 records: the plugin the verification service mounts, the routes, the route table.
// Implements SPEC.md's Lifecycle, Succession, Dispute, Rights and Delegation endpoints under D14–D17.
export { V2_RESPONSE_HEADERS, v2ResponseHeaders } from './headers.ts';
export { ID_PATTERN, ID_PATTERN_TEXT, vitalityReportHash } from './ids.ts';
export { type IdRule, RECORD_ROUTES, type RecordRoute, TRANSITION_PATH } from './kinds.ts';
export { LIFECYCLE_MACHINE, LIFECYCLE_STATES } from './lifecycle-machine.ts';
export {
  loadRecordsConfig,
  mountRecords,
  openRecordStore,
  RECORDS_ENV,
  type RecordsConfig,
  type RecordsPluginOptions,
  records,
} from './plugin.ts';
export { DEFAULT_RATE_LIMIT_PER_MINUTE } from './rate-limit.ts';
export { type RecordRoutesOptions, recordRoutes } from './routes.ts';
