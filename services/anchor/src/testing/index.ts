// What other packages' tests take from the anchor service (`@proto/anchor/testing`): the app in-process, local
// chains and explorers. docs/architecture.md §1: tests import a package by name, never by path into its src.
export { bitcoinPrivateKey, bitcoinWallet } from '../adapters/bitcoin.ts';
export * from './app.ts';
export * from './child.ts';
export * from './esplora-server.ts';
export * from './evm-chain.ts';
export * from './evm-receipts.ts';
export * from './ganache.ts';
export * from './log-server.ts';
export * from './witnessed-anchoring.ts';
export * from './witnessed-log.ts';
