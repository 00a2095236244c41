// `proto keygen`: a fresh Ed25519 or ML-DSA-65 key pair with its derived kid, as JSON.
// PROTOCOL §4.3 (raw keys, SDK secret-key layout), §4.4 (kid derivation).
import type { Command } from '../command.ts';
import type { SigningAlg } from '../core.ts';
import { CliError, EXIT_OK, loadCore, printJson } from '../io.ts';

export const keygenCommand: Command = {
  name: 'keygen',
  summary: 'generate an Ed25519 or ML-DSA-65 key pair (JSON with kid and base64 keys)',
  usage: ['[--alg ed25519|ml-dsa-65]'],
  description: `Generates a key pair and prints {alg, kid, public_key_b64, secret_key_b64}.
The secret key uses the SDK layout: Ed25519 seed ‖ public key (64 bytes),
ML-DSA-65 FIPS 204 expanded key (4032 bytes). Keep it secret.`,
  options: [{ flags: '--alg <ALG>', description: 'ed25519 (default) or ml-dsa-65' }],
  positionals: { min: 0, max: 0 },
  async run({ values }, io) {
    const { deriveKid, keyPairToJson, SIGNING_ALGS, selectCryptoBackend } = await loadCore();
    const alg = values['alg'] ?? 'ed25519';
    if (!isSigningAlg(alg, SIGNING_ALGS))
      throw new CliError(`--alg must be ed25519 or ml-dsa-65, got '${String(alg)}'`, { showUsage: true });
    const pair = selectCryptoBackend().generateKeyPair(alg);
    printJson(
      io,
      keyPairToJson({
        alg,
        kid: deriveKid(alg, pair.publicKey),
        publicKey: pair.publicKey,
        secretKey: pair.secretKey,
      }),
    );
    return EXIT_OK;
  },
};

function isSigningAlg(value: unknown, algs: readonly SigningAlg[]): value is SigningAlg {
  return typeof value === 'string' && (algs as readonly string[]).includes(value);
}
