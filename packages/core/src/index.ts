// Public API of the core protocol library: canonical JSON, hashes, Merkle trees, crypto, schemas,
// policy, bundle verification and building. Pure logic, no I/O (ARCHITECTURE §1–2).
export * from './errors.ts';
export * from './profile.ts';
export * from './result.ts';
