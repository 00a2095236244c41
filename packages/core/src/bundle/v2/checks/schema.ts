// V2 check `schema` as one step: size limits and version gate (structure.ts), the V2 schema, then every
// part's canonical form (forms.ts). PROTOCOL §6.1, §6.10 step 1; D5, D11. Errors E001, E002, E003.
import type { Ledger } from '../../ledger.ts';
import type { VerifierRuntime } from '../../settings.ts';
import type { V2Parts } from '../context.ts';
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
  ledger.set('schema', 'pass');
  return { parts, forms };
}
