// Public API of the anchor service package: the app factory, configuration, adapters, worker and receipts.
// SPEC.md "POST /anchor" and "Anchor receipt", DECISIONS D19.
export * from './adapters/index.ts';
export { type AnchorServiceOptions, buildAnchorService, SERVICE_NAME, SERVICE_VERSION } from './app.ts';
export { ANCHOR_ENV, type AnchorConfig, loadAnchorConfig } from './config.ts';
export { buildReceipt, receiptStatus } from './receipts.ts';
export { AnchorWorker, type AnchorWorkerOptions, batchTree } from './worker.ts';
