// The schemas' `date-time` format: core's one date-time check (time/date-time.ts), whose fast path decides the shape
// every SDK writes before ajv-formats' full RFC 3339 check. Issue 14 (schema validation cost), P77; P202.
import type { FormatDefinition } from 'ajv/dist/2020.js';
import { isDateTime } from '../time/date-time.ts';

type Ajv = InstanceType<typeof import('ajv/dist/2020.js').default>;

/**
 * Replaces the `date-time` format already added to `ajv` (ajv-formats' full check) by isDateTime: the fast path,
 * then that same full check for every string the fast path does not accept, so the accepted set is unchanged and
 * the schemas and every other reader of a date-time (dateTimeInstant) share one rule.
 */
export function useFastDateTime(ajv: Ajv): void {
  const full = ajv.formats['date-time'];
  if (typeof full !== 'object' || full instanceof RegExp || full.async === true || full.type === 'number') {
    throw new Error(
      'the date-time format must be a synchronous string function format (ajv-formats, full mode)',
    );
  }
  // A string format (the checks above): its validator and comparison take strings.
  const { validate, compare } = full as FormatDefinition<string>;
  if (typeof validate !== 'function') throw new Error('the date-time format has no validate function');
  const fast: FormatDefinition<string> = { validate: isDateTime };
  if (compare !== undefined) fast.compare = compare;
  ajv.addFormat('date-time', fast);
}
