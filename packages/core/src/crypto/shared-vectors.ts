// Test-only: locates and loads the shared public vectors (../shared/vectors beside the repository).
// CONTRIBUTING ("shared public vectors are read from ../shared/vectors when that folder exists").

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The repository root: packages/core/src/crypto → four levels up. */
export const REPO_ROOT = path.resolve(import.meta.dirname, '../../../..');
export const SHARED_VECTORS_DIR = path.resolve(REPO_ROOT, '../shared/vectors');
export const HAS_SHARED_VECTORS = existsSync(SHARED_VECTORS_DIR);

export function readSharedJson<T>(relativePath: string): T {
  return JSON.parse(readFileSync(path.join(SHARED_VECTORS_DIR, relativePath), 'utf8')) as T;
}

export interface NistEd25519File {
  readonly test_vectors: readonly {
    readonly name: string;
    readonly secret_key_hex: string;
    readonly public_key_hex: string;
    readonly message_hex: string;
    readonly signature_hex: string;
  }[];
}

export interface NistMlDsa65File {
  readonly properties: {
    readonly algorithm: string;
    readonly public_key_size: number;
    readonly secret_key_size: number;
    readonly signature_size: number;
    readonly kid_length: number;
  };
  readonly property_tests: readonly { readonly name: string }[];
}

export const INTEROP_VECTORS_PATH = 'tests/interop/v2/interop_vectors.json';
export const NIST_ED25519_PATH = 'tests/nist-kat/ed25519/vectors.json';
export const NIST_ML_DSA_65_PATH = 'tests/nist-kat/ml-dsa-65/vectors.json';
