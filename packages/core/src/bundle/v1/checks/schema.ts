// V1 check `schema`: the signed_bundle against the V1 schema, and every part the other checks hash
// has a V1-canonical form. PROTOCOL §5.1; errors BUNDLE_SCHEMA_INVALID (E100).
import { canonicalBytesV1 } from '../../../canonical/index.ts';
import { formatSchemaIssues, validateSchema } from '../../../schema/index.ts';
import { prop, propArray, propRecord } from '../../json.ts';
import type { Ledger } from '../../ledger.ts';
import type { ParsedV1 } from './parsed.ts';

/** Records `schema`; returns the parsed bundle, or undefined when the pipeline must stop here. */
export function checkSchema(ledger: Ledger, signed: unknown): ParsedV1 | undefined {
  const verdict = validateSchema('v1', 'signed_bundle', signed);
  if (!verdict.valid) {
    ledger.fail('schema', 'BUNDLE_SCHEMA_INVALID', `signed_bundle: ${formatSchemaIssues(verdict.issues, 8)}`);
    return undefined;
  }
  const bundle = propRecord(signed, 'bundle');
  const signature = propRecord(signed, 'signature');
  const entries = propArray(bundle, 'audit_entries') ?? [];
  const canonical = canonicalBytesV1(bundle);
  if (bundle === undefined || signature === undefined || !canonical.ok) {
    ledger.fail(
      'schema',
      'BUNDLE_SCHEMA_INVALID',
      `bundle: ${canonical.ok ? 'missing' : canonical.error.message}`,
    );
    return undefined;
  }
  const entryBytes: Uint8Array[] = [];
  for (const [i, entry] of entries.entries()) {
    const bytes = canonicalBytesV1(entry);
    if (!bytes.ok) {
      ledger.fail('schema', 'BUNDLE_SCHEMA_INVALID', `audit_entries[${i}]: ${bytes.error.message}`);
      return undefined;
    }
    entryBytes.push(bytes.value);
  }
  const intentBytes = canonicalBytesV1(prop(bundle, 'intent'));
  const rprBytes = canonicalBytesV1(prop(bundle, 'responsible_principal_record'));
  if (entries.length === 0 || !intentBytes.ok || !rprBytes.ok) {
    ledger.fail(
      'schema',
      'BUNDLE_SCHEMA_INVALID',
      'bundle: intent, responsible_principal_record or audit_entries unusable',
    );
    return undefined;
  }
  ledger.set('schema', 'pass');
  return {
    bundle,
    signature,
    entries,
    bundleBytes: canonical.value,
    entryBytes,
    intentBytes: intentBytes.value,
    rprBytes: rprBytes.value,
  };
}
