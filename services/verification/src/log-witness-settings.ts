// Where the operator's witness settings (ANCHOR_VERIFY_WITNESS_*, per log in ANCHOR_VERIFY_LOG_URL) are shown:
// the capabilities document (P60) and the console's config (P61), so both say the quorum /verify applies.
import type { VerificationConfig } from './config.ts';
import type { LogWitnessQuorum } from './routes/capabilities.ts';

export function logWitnessQuorums(config: VerificationConfig): LogWitnessQuorum[] {
  return (config.ANCHOR_VERIFY_LOG_URL ?? []).flatMap((log) =>
    log.witnesses === undefined || log.witnesses.length === 0
      ? []
      : [{ log_url: log.url, quorum: log.quorum ?? log.witnesses.length, witnesses: [...log.witnesses] }],
  );
}

/**
 * The witnesses and k of the console's log (CONSOLE_LOG_URL): those of the ANCHOR_VERIFY_LOG_URL entry with
 * that URL. A console log the anchor check does not know gets none (the page then checks no quorum, says so).
 */
export function consoleWitnesses(
  config: VerificationConfig,
): { log_witnesses: string[]; log_witness_quorum: number } | Record<string, never> {
  const log = logWitnessQuorums(config).find((l) => l.log_url === config.CONSOLE_LOG_URL);
  return log === undefined ? {} : { log_witnesses: [...log.witnesses], log_witness_quorum: log.quorum };
}
