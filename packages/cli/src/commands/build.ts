// `proto build`: a signed sample bundle for a tier, printed as the signed bundle object.
// Uses the core bundle builder (PROTOCOL §5–§6; DECISIONS D1, D5, D6 for profile and shape).
import { createHash } from 'node:crypto';
import type { Command } from '../command.ts';
import type { BuildOptions } from '../core.ts';
import { integerOption } from '../integer-option.ts';
import { CliError, EXIT_OK, loadCore, printJson } from '../io.ts';

export const buildCommand: Command = {
  name: 'build',
  summary: 'build a signed sample bundle (fresh keys) for a security tier',
  usage: ['[options]'],
  description: `Builds a signed sample bundle with freshly generated keys and prints it as JSON.
The intent is chosen so that the bundle resolves to exactly TIER.`,
  options: [
    { flags: '--tier <TIER>', description: 'routine, standard (default), elevated or maximum' },
    { flags: '--entries <N>', description: 'number of audit entries, at least 1 (default 3)' },
    { flags: '--profile <P>', description: 'proto (default) or dcp-ai: the signing contexts' },
    {
      flags: '--shape <S>',
      description:
        'spec or sdk: manifest, checkpoint and signature shape (default spec under proto, sdk under dcp-ai)',
    },
    { flags: '--classical-only', description: 'sign with Ed25519 only (V2)' },
    { flags: '--v1', description: 'build a V1 bundle (Ed25519, V1 canonical JSON)' },
    {
      flags: '--emergency-secret <HEX>',
      description:
        '32-byte secret as 64 hex: the passport carries its SHA-256 as emergency_revocation_token (PROTOCOL §9.5), so whoever holds the secret can revoke the agent at the revocation service',
    },
    {
      flags: '--keys-out <FILE>',
      description:
        "also write the bundle's key pairs {agent, principal} (secret!) to FILE, for `proto record sign --keys FILE`",
    },
  ],
  epilog: `Example:
  proto build --tier elevated --entries 10 | proto verify -
`,
  positionals: { min: 0, max: 0 },
  async run({ values }, io) {
    const { buildSignedBundle, bundleKeysToJson, isProfileName, isSecurityTier, SECURITY_TIERS } =
      await loadCore();
    const tier = values['tier'] ?? 'standard';
    if (!isSecurityTier(tier))
      throw usage(`--tier must be one of ${SECURITY_TIERS.join(', ')}, got '${String(tier)}'`);
    const entries = integerOption(values['entries'], 'entries', { min: 1, max: 10_000 }) ?? 3;
    const profile = values['profile'] ?? 'proto';
    if (!isProfileName(profile)) throw usage(`--profile must be proto or dcp-ai, got '${String(profile)}'`);
    const shape = values['shape'];
    if (shape !== undefined && shape !== 'spec' && shape !== 'sdk')
      throw usage(`--shape must be spec or sdk, got '${String(shape)}'`);
    const v1 = values['v1'] === true;
    if (v1 && shape !== undefined) throw usage('--shape applies to V2 bundles only (not with --v1)');
    if (v1 && values['classical-only'] === true)
      throw usage('--classical-only applies to V2 bundles only (V1 is always Ed25519)');
    const secret = values['emergency-secret'];
    if (secret !== undefined && (typeof secret !== 'string' || !/^[0-9a-f]{64}$/.test(secret)))
      throw usage('--emergency-secret must be 64 lowercase hex digits (32 bytes)');
    if (secret !== undefined && v1) throw usage('--emergency-secret applies to V2 bundles only');
    const options: BuildOptions = {
      version: v1 ? '1.0' : '2.0',
      profile,
      tier,
      entries,
      classicalOnly: values['classical-only'] === true,
      ...(shape !== undefined ? { shape } : {}),
      ...(secret === undefined
        ? {}
        : {
            emergencyRevocationToken: `sha256:${createHash('sha256').update(Buffer.from(secret, 'hex')).digest('hex')}`,
          }),
    };
    const built = buildSignedBundle(options);
    const keysOut = values['keys-out'];
    if (typeof keysOut === 'string') {
      const keys = {
        agent: bundleKeysToJson(built.keys.agent),
        principal: bundleKeysToJson(built.keys.principal),
      };
      await writeSecretFile(keysOut, `${JSON.stringify(keys, null, 2)}\n`);
    }
    printJson(io, built.signed_bundle);
    return EXIT_OK;
  },
};

/**
 * P530: the file holds secret keys. writeFileSync's `mode` applies only to a file it creates: an existing FILE readable
 * by others kept its mode and got the keys, and a link at FILE had its target overwritten. A new 0600 file beside FILE
 * (created exclusively, so never an existing file or a link) is renamed over it: FILE is then that file, whatever was
 * there, and a link's target is untouched.
 */
async function writeSecretFile(file: string, text: string): Promise<void> {
  const { randomBytes } = await import('node:crypto');
  const { renameSync, rmSync, writeFileSync } = await import('node:fs');
  const path = await import('node:path');
  const fresh = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`,
  );
  try {
    writeFileSync(fresh, text, { mode: 0o600, flag: 'wx' });
    renameSync(fresh, file);
  } catch (error) {
    rmSync(fresh, { force: true });
    throw new CliError(
      `--keys-out ${file}: cannot write: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
}

function usage(message: string): CliError {
  return new CliError(message, { showUsage: true });
}
