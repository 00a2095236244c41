// Framework-free clients for what the stack reads remotely (chains, logs), shared by the services and the CLI.
// docs/architecture.md §1: the CLI imports core and HTTP clients only, so these live outside service-kit.
export * from './anchor-client.ts';
export * from './bounded-body.ts';
export * from './fetch-bounded.ts';
export * from './log-witnesses.ts';
export * from './redact-url.ts';
