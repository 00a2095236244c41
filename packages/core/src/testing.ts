// Test fixtures of core for other packages' tests (`@proto/core/testing`); not part of the public API.
// docs/architecture.md §1: tests import a package by name, never by path into its src.

export * from './bundle/uncovered-fixture.ts';
export * from './revocation/test-support.ts';
