// Public API of the witness service package: the app builder, its configuration and its parts.
// c2sp.org/tlog-witness; issue 18 item 2.
export { type BuildWitnessOptions, buildWitness, SERVICE_NAME, type WitnessHandle } from './app.ts';
export { DEFAULT_WITNESS_NAME, loadWitnessConfig, WITNESS_ENV, type WitnessConfig } from './config.ts';
export { TLOG_SIZE_CONTENT_TYPE } from './routes.ts';
export { type AddCheckpointOutcome, type RefusalReason, Witness } from './witness.ts';
export { loadWitnessKey, WITNESS_KEY_FILE, type WitnessKey } from './witness-key.ts';
export { loadWitnessedLogs, parseWitnessedLogs } from './witnessed-logs.ts';
