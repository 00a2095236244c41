// V2 check `schema` as one step: size limits and version gate (structure.ts), the V2 schema, then every
// part's canonical form (forms.ts), then the whole bundle's depth (depth.ts, P219). PROTOCOL §6.1, §6.10 step 1;
// D2, D5, D11. Errors E001, E002, E003.
import { canonicalSignedV2 } from '../../bundle-hashes.ts';
import { prop } from '../../json.ts';
import type { Ledger } from '../../ledger.ts';
import type { VerifierRuntime } from '../../settings.ts';
import type { V2Parts } from '../context.ts';
import { signedBundleFitsDepth } from '../depth.ts';
import { canonicalFormsV2, type V2Forms } from '../forms.ts';
import { checkLimitsV2, checkSchemaV2, checkVersionV2 } from '../structure.ts';

/** Records `schema` (or the version refusal); undefined when the pipeline must stop here. */
export function checkSchema(
  ledger: Ledger,
  runtime: VerifierRuntime,
  signed: unknown,
  bundle: unknown,
): { readonly parts: V2Parts; readonly forms: V2Forms } | undefined {
  if (!checkLimitsV2(ledger, runtime.settings, bundle)) return undefined;
  if (!checkVersionV2(ledger, runtime.settings, bundle)) return undefined;
  const parts = checkSchemaV2(ledger, signed);
  if (parts === undefined) return undefined;
  const forms = canonicalFormsV2(ledger, parts, runtime.profile);
  if (forms === undefined) return undefined;
  // P219: each part within the limit does not make the whole one so (an entry sits 4 deep in it). A bundle deeper
  // than 64 has no bundle hash (D2), so nothing could log, anchor or cache it: it is refused here, with the path
  // core's writer names, and a verified V2 bundle always has its hash.
  if (!signedBundleFitsDepth(prop(signed, 'bundle'), prop(signed, 'signature'), forms.memo)) {
    const refusal = canonicalSignedV2(signed, forms.memo);
    const reason = refusal.ok ? 'nesting depth exceeds 64' : refusal.error.message;
    ledger.fail('schema', 'BUNDLE_SCHEMA_INVALID', `signed bundle has no bundle hash: ${reason}`);
    return undefined;
  }
  ledger.set('schema', 'pass');
  return { parts, forms };
}
