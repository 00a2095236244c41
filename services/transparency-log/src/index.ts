// Public API of the transparency-log service package: the app builder, its configuration and its parts.
// SPEC.md "Transparency log service"; DECISIONS D18.
export {
  type BuildTransparencyLogOptions,
  buildTransparencyLog,
  SERVICE_NAME,
  type TransparencyLogHandle,
} from './app.ts';
export { Checkpointer, InconsistentTreeError } from './checkpointer.ts';
export {
  DEFAULT_LOG_ORIGIN,
  loadTransparencyLogConfig,
  TRANSPARENCY_LOG_ENV,
  type TransparencyLogConfig,
} from './config.ts';
export { outcomeFromResponse, pollBackoffMs, RootAnchorer, rootAnchorView } from './root-anchor.ts';
export { Sequencer, SequencerClosedError, SequencerFullError } from './sequencer.ts';
export { KEY_FILES, type LogSigningKeys, loadLogSigningKeys } from './signing-keys.ts';
export { consistencyAnswer, inclusionAnswer, NodeCache, rootAt } from './tree.ts';
