// Which trees a proof or a look-up may be answered in (P460). Without witnesses, any committed tree: the head is the
// log's current tree. With witnesses, only trees the published checkpoint covers: a proof leads to a root, and a
// root past the published size is one no witness quorum has cosigned, so a client handed it could be shown a tree
// (a split view) the witnesses never saw. A size past it is "not yet" (404 retryable, as `/checkpoint?tree_size=`
// since P390), never clamped: a client that names a size is answered in that size or not at all.
import { type HttpError, httpError } from '@proto/service-kit';

export interface ProvableTrees {
  /** Witnesses are configured (LOG_WITNESSES). */
  readonly witnessed: boolean;
  /** Size of the published (quorum-cosigned) checkpoint; undefined before the first. */
  readonly publishedSize: () => number | undefined;
  /** When a tree past the published one may be cosigned: CHECKPOINT_INTERVAL_MS. */
  readonly retryAfterMs: number;
}

/**
 * The largest tree size a proof may be answered in, given the committed head: the head without witnesses; with
 * witnesses the published checkpoint's size (never past the head), or -1 before any checkpoint is published.
 */
export function provableSize(trees: ProvableTrees, headSize: number): number {
  if (!trees.witnessed) return headSize;
  const published = trees.publishedSize();
  return published === undefined ? -1 : Math.min(published, headSize);
}

/** The 404 of a tree or an entry the witness quorum has not covered yet: retryable, after a checkpoint round. */
export function notYetCosigned(trees: ProvableTrees, what: string, headSize: number): HttpError {
  const published = provableSize(trees, headSize);
  const by =
    published < 0
      ? 'no checkpoint has gathered the witness quorum yet'
      : `the witness-cosigned checkpoint is of size ${published}`;
  return httpError('NOT_FOUND', `${what} is not covered by a witness-cosigned checkpoint yet (${by})`, {
    retryable: true,
    headers: { 'retry-after': String(Math.max(1, Math.ceil(trees.retryAfterMs / 1000))) },
  });
}
