// Polling until something a test cannot be told about has happened (a child's log line, a row another
// process wrote, a key a background job bound): the one loop every test and bench uses for that.

/** What a probe gives while it waits: `undefined` or `false` is "not yet"; anything else is the answer. */
export type Probe<T> = () => T | undefined | false | Promise<T | undefined | false>;

/**
 * Calls `probe` every `everyMs` until it answers, and resolves with that answer; rejects naming `what` after
 * `timeoutMs`. A probe that throws ends the wait with its error, so it can say "this will never happen" (the
 * child exited); one for which an error only means "not yet" (a connection refused while a service starts)
 * catches it and returns undefined.
 */
export async function waitFor<T>(probe: Probe<T>, timeoutMs: number, what: string, everyMs = 20): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const answer = await probe();
    if (answer !== undefined && answer !== false) return answer;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
