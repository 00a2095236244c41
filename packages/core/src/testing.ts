// Test fixtures of core for other packages' tests (`@proto/core/testing`); not part of the public API.
// docs/architecture.md §1: tests import a package by name, never by path into its src.

// A stranger's bundle with another agent's copied RPR, signed by the stranger's passport keys (P490).
export * from './bundle/borrowed-rpr-fixture.ts';
// The bundle corpus (test-vectors/bundle-corpus) as /verify requests, for other packages' tests of the same bundles.
export { type MaterializedCase, readCorpus } from './bundle/build/corpus/generate.ts';
export * from './bundle/uncovered-fixture.ts';
export * from './revocation/test-support.ts';
