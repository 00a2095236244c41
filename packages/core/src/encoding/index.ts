// Public API of the byte encodings: strict Base64, lowercase hex, UTF-8 and byte helpers.
// PROTOCOL §2.1 (lowercase hex) and §4.1 (standard padded Base64), DECISIONS D3.
export { decodeBase64Strict, encodeBase64 } from './base64.ts';
export { bytesEqual, concatBytes, utf8Encode } from './bytes.ts';
export { fromHex, toHex } from './hex.ts';
export { jsonWithHiddenEscaped } from './json-text.ts';
