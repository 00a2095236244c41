// Public API of the revocation service package: the app factory, its configuration and key loading.
// SPEC.md "Revocation service", "Attestation service"; DECISIONS D20, D21, D22.
export {
  ATTESTATION_KEY_FILE,
  type BuildRevocationAppOptions,
  buildRevocationApp,
  REVOCATION_KEY_FILE,
  SERVICE_NAME,
  SERVICE_VERSION,
} from './app.ts';
export { loadRevocationConfig, parsePreviousKeys, REVOCATION_ENV, type RevocationConfig } from './config.ts';
export { loadSigningKey, parseSecretKey, type SigningKey } from './keys.ts';
export { ListPublisher } from './publisher.ts';
