// The one error type of the CBOR codec, so callers can tell bad input (a 400) from a bug.

/** Bad CBOR input, or a value the codec does not encode: the message says what was wrong and where. */
export class CborError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CborError';
  }
}
