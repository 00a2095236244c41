// Last-Modified and If-Modified-Since for the revocation list. HTTP dates have whole seconds and lists do not:
// a Last-Modified cut down to its second is earlier than the list, so a newer list issued later in that same
// second (a new revocation) looked "not modified" to a client holding the older one. P153. The request's date is
// read by service-kit's parseHttpDate, as an HTTP-date and nothing else (P212, P245).

/**
 * The Last-Modified of a list issued at `issuedMs`: its second rounded up, so that the date is never before
 * the list, but never after the clock's own second (RFC 9110 §8.8.2.1: not later than the response's Date).
 */
export function listLastModified(issuedMs: number, nowMs: number): Date {
  return new Date(Math.min(Math.ceil(issuedMs / 1000) * 1000, Math.floor(nowMs / 1000) * 1000));
}
