// CBOR wire format: strict decoding to plain JSON values and deterministic encoding, transport only.
// PROTOCOL §8.2 (rules of the upstream codec; signatures are always over the JSON form), SPEC.md Versioning 7.
// This module is the codec alone (no Fastify, pino, ioredis): verification threads import it (P72).
export { decodeCbor } from './cbor-decode.ts';
export { encodeCbor } from './cbor-encode.ts';
export { CborError } from './cbor-error.ts';
