// `proto hash`: the hashes that identify a bundle: V1 bundle_hash (recomputed), V2 bundle hash and
// manifest hash. PROTOCOL §2.1, §5.2 (V1 bundle_hash), §6.3 (manifest_hash); SPEC.md item 9.
import type { Command } from '../command.ts';
import {
  CliError,
  EXIT_OK,
  inputName,
  isPlainObject,
  loadCore,
  printJson,
  readJsonInput,
  twoReadingsMessage,
} from '../io.ts';

export const hashCommand: Command = {
  name: 'hash',
  summary: 'print the bundle hash (and the V2 manifest hash) of a signed bundle',
  usage: ['FILE|-'],
  description: `Prints the hashes of a signed bundle (or of the signed_bundle in a /verify request body):
  V1: {"version": "1.0", "bundle_hash": "sha256:…", "bundle_hash_secondary": "sha3-256:…"}
      SHA-256 and SHA3-256 of the V1-canonical bundle
  V2: {"version": "2.0", "bundle_hash": "sha256:…", "bundle_hash_secondary": "sha3-256:…", "manifest_hash": "sha256:…"}
      bundle_hash = SHA-256 of jcs({bundle, signature}), members of bundle no signature covers set aside (as
      the verifier reads it); bundle_hash_secondary = SHA3-256 of the same bytes (what POST /anchor's
      bundle_hash_secondary takes); manifest_hash = SHA-256 of jcs(manifest)
The values are recomputed from the content, never copied from the bundle.`,
  options: [],
  positionals: { min: 1, max: 1 },
  async run({ positionals }, io) {
    const { computeBundleHashes, detectBundleVersion, hashCanonicalV2 } = await loadCore();
    const source = positionals[0] as string;
    const name = inputName(source);
    const input = await readJsonInput(source, io);
    const twice = isPlainObject(input) ? twoReadingsMessage(input) : undefined;
    if (twice !== undefined) throw new CliError(`${name}: ${twice}`);
    const signed =
      isPlainObject(input) && isPlainObject(input['signed_bundle']) ? input['signed_bundle'] : input;
    if (!isPlainObject(signed) || !isPlainObject(signed['bundle'])) {
      throw new CliError(`${name}: expected a signed bundle {bundle, signature}`);
    }
    const version = detectBundleVersion(signed);
    if (version !== '1.0' && version !== '2.0') throw new CliError(`${name}: not a V1 or V2 signed bundle`);
    // One definition for both hashes (P62), shared with the builder and the verifiers.
    const hashes = computeBundleHashes(signed);
    if (!hashes.ok) throw new CliError(`${name}: cannot hash the bundle: ${hashes.error.message}`);
    const { bundleHash, bundleHashSecondary } = hashes.value;
    if (version === '1.0') {
      printJson(io, { version: '1.0', bundle_hash: bundleHash, bundle_hash_secondary: bundleHashSecondary });
      return EXIT_OK;
    }
    const manifest = signed['bundle']['manifest'];
    if (!isPlainObject(manifest)) throw new CliError(`${name}: V2 bundle has no manifest object`);
    const manifestHash = hashCanonicalV2('sha256', manifest);
    if (!manifestHash.ok)
      throw new CliError(`${name}: cannot hash the manifest: ${manifestHash.error.message}`);
    printJson(io, {
      version: '2.0',
      bundle_hash: bundleHash,
      bundle_hash_secondary: bundleHashSecondary,
      manifest_hash: manifestHash.value,
    });
    return EXIT_OK;
  },
};
