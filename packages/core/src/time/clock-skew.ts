// How far a signed time may lie ahead of the verifier's clock and still count as now: the clocks of signer and
// verifier differ. One bound for every such time: revocation lists and entries, passports in the key directory
// (P173), `/v2` records (P203, P207), and a signing key's `created_at` (P231).

/** Five minutes. */
export const DEFAULT_MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;
