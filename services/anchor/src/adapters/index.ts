// The chain adapters, for the package's users and tests. The service builds its own from the environment
// with createAdapters (configured.ts), which imports the EVM and Bitcoin adapters only when configured.
export { BITCOIN_NETWORKS, BitcoinAdapter, bitcoinPrivateKey, bitcoinWallet } from './bitcoin.ts';
export { createAdapters } from './configured.ts';
export { ANCHOR_ABI, EthereumAdapter } from './ethereum.ts';
export { LOG_CHAIN_NAME, type LogEntryDetail, TransparencyLogAdapter } from './transparency-log.ts';
export * from './types.ts';
