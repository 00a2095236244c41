// What a succession record's write checks and keeps inside its transaction, beside the record: the testament's consent
// rule in both orders (P513, P562), the consent's one use (P511), the manifest it names (P561). One call from the
// handler, so the checks live here and handlers.ts only orders the write.
import type { ProtocolProfile } from '@proto/core';
import { RecordIdRetiredError, type RecordRepository } from '@proto/store';
import type { JsonObject } from './body.ts';
import { conflict } from './errors.ts';
import { refuseUnconsentedSuccession, spendConsent } from './human-consent.ts';
import { refuseForeignManifest } from './succession-manifest.ts';

export const TESTAMENT = 'digital_testament';

/**
 * P562: the agents with a verified succession record stored without a human's consent, by predecessor id: what a
 * testament requiring one, stored later, would contradict.
 */
const UNCONSENTED = 'succession_unconsented';

type Records = Pick<RecordRepository, 'get' | 'put' | 'latestForAgent' | 'lockSeries'>;

const hasConsent = (record: JsonObject): boolean =>
  typeof record['human_consent'] === 'object' && record['human_consent'] !== null;

/**
 * The succession record's checks, in the transaction that stores it (before the put; a refusal rolls all back).
 * Returns the warnings of its answer. `verified`: its signature was verified (P513 and P511 hold such writes only).
 */
export async function checkSuccessionWrite(
  records: Records,
  record: JsonObject,
  options: { readonly verified: boolean; readonly profile: ProtocolProfile; readonly id: string },
): Promise<string[]> {
  const predecessor = String(record['predecessor_agent_id']); // schema-checked
  // P562: the testament's series lock, which its writes take too: a testament and a succession racing are ordered, so
  // each is judged against the other whichever commits first.
  await records.lockSeries(TESTAMENT, predecessor);
  const warnings = await refuseForeignManifest(records, record, options.profile);
  if (!options.verified) return warnings;
  await refuseUnconsentedSuccession(records, record);
  await spendConsent(records, record);
  if (!hasConsent(record)) await markUnconsented(records, predecessor, options.id);
  return warnings;
}

async function markUnconsented(records: Records, predecessor: string, id: string): Promise<void> {
  try {
    // The first such record names it; a later one finds it marked (a conflict on its other id changes nothing).
    await records.put(UNCONSENTED, predecessor, { predecessor_agent_id: predecessor, succession_id: id });
  } catch (error) {
    // Evicted by retention (D17): its tombstone still says the agent was succeeded without a consent.
    if (!(error instanceof RecordIdRetiredError)) throw error;
  }
}

/**
 * P562: P513 judged a succession against the testament stored before it only; a testament requiring a consent stored
 * after a verified succession without one would then claim a rule its stored succession broke. Such a testament is
 * refused (409, naming the succession), whoever writes it, as P513 would have refused the succession in the other
 * order. Called in the testament's transaction, after its series lock.
 */
export async function refuseTestamentAfterUnconsentedSuccession(
  records: Pick<RecordRepository, 'get' | 'tombstone'>,
  testament: JsonObject,
): Promise<void> {
  if (testament['human_consent_required'] !== true) return;
  const agentId = String(testament['agent_id']);
  const marked = (await records.get(UNCONSENTED, agentId))?.record as JsonObject | undefined;
  const evicted = marked === undefined ? await records.tombstone(UNCONSENTED, agentId) : undefined;
  if (marked === undefined && evicted === undefined) return;
  throw conflict(
    `Agent ${agentId} already has a verified succession record stored without a human's consent${marked === undefined ? '' : ` (${String(marked['succession_id'])})`}: a testament requiring one would contradict it`,
    {
      reason: 'succession_without_consent_stored',
      agent_id: agentId,
      testament_version: testament['testament_version'],
      ...(marked === undefined ? {} : { succession_id: marked['succession_id'] }),
    },
  );
}
