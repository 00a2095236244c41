// `minLength`/`maxLength` counted in code points as Ajv counts them, but only when the string's code units
// cannot decide. Issue 14 (schema validation must not walk kilobytes of base64), P30 (lengths in code points), P76.
import { _, type CodeKeywordDefinition, type KeywordErrorDefinition, str } from 'ajv/dist/2020.js';

type Ajv = InstanceType<typeof import('ajv/dist/2020.js').default>;

/**
 * Code points as Ajv's `ucs2length` and the string iterator count them: a high surrogate followed by a
 * low one is one character, a lone surrogate is one too.
 */
export function codePoints(value: string): number {
  const n = value.length;
  let count = 0;
  for (let i = 0; i < n; i++, count++) {
    const unit = value.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < n && (value.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
  }
  return count;
}

/**
 * A string of n UTF-16 code units holds between ⌈n/2⌉ and n code points (a character is one or two
 * units). So `n < min` already fails minLength and `n >= 2·min` already passes it, and for maxLength
 * `n <= max` passes and `n > 2·max` fails; only a string in between needs its characters counted. The
 * verdict is Ajv's for every string, but a 4 KB signature checked against `minLength: 8` costs one
 * comparison instead of a walk over 4,096 characters.
 */
export function hasFewerCodePoints(value: string, min: number, count = codePoints): boolean {
  const n = value.length;
  return n < min || (n < 2 * min && count(value) < min);
}

export function hasMoreCodePoints(value: string, max: number, count = codePoints): boolean {
  const n = value.length;
  return n > max && (n > 2 * max || count(value) > max);
}

// The same error object as Ajv's own keyword (keyword, params.limit, message), so issues do not change.
const error: KeywordErrorDefinition = {
  message: ({ keyword, schemaCode }) =>
    str`must NOT have ${keyword === 'maxLength' ? 'more' : 'fewer'} than ${schemaCode} characters`,
  params: ({ schemaCode }) => _`{limit: ${schemaCode}}`,
};

/**
 * Replaces Ajv's `maxLength` and `minLength` (which count every character of every string) by the
 * bounded checks above, in the same place among the string keywords so that `allErrors` lists issues in
 * the same order. `count` is the code-point counter the generated code calls (a test passes a counting one).
 */
export function useBoundedStringLength(ajv: Ajv, count: (value: string) => number = codePoints): void {
  const definition: CodeKeywordDefinition = {
    keyword: ['maxLength', 'minLength'],
    type: 'string',
    schemaType: 'number',
    before: 'pattern',
    error,
    code(cxt) {
      const { gen, keyword, data, schemaCode } = cxt;
      const check = gen.scopeValue('func', {
        ref: keyword === 'maxLength' ? hasMoreCodePoints : hasFewerCodePoints,
      });
      const counter = gen.scopeValue('func', { ref: count });
      cxt.fail(_`${check}(${data}, ${schemaCode}, ${counter})`);
    },
  };
  ajv.removeKeyword('maxLength');
  ajv.removeKeyword('minLength');
  ajv.addKeyword(definition);
}
