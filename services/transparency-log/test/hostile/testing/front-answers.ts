// What a witness behind a node:http front answers when the suite has it cosign honestly: its cosignature line over
// the checkpoint the log sent, stated at the real clock, under the suite's own key (P390, P394, P395, P460).
import {
  type Cosigner,
  cosignCheckpoint,
  formatSignatureLine,
  parseAddCheckpointRequest,
  parseSignedNote,
  selectCryptoBackend,
} from '@proto/core';
import type { FrontRequest } from '@proto/testing';

const backend = selectCryptoBackend();

/** The cosignature line `cosigner` gives the add-checkpoint request `request` (throws on a request it cannot read). */
export function honestCosignature(request: FrontRequest, cosigner: Cosigner): string {
  const parsed = parseAddCheckpointRequest(request.text());
  if (!parsed.ok) throw new Error(parsed.error.message);
  const text = parseSignedNote(parsed.value.checkpoint);
  if (!text.ok) throw new Error(text.error.message);
  const signed = cosignCheckpoint(text.value.text, cosigner, Math.floor(Date.now() / 1000), backend);
  if (!signed.ok) throw new Error(signed.error.message);
  return formatSignatureLine(signed.value);
}
