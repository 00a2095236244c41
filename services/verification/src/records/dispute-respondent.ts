// Whom a signed dispute may name as its respondent (P208). A dispute record is signed by its initiator alone (core's
// rule: `initiator_agent_id`), and PROTOCOL gives the respondent no say and no check (upstream validates only the
// dispute id). So an agent with its own verified bundle filed `verified` disputes against ids nobody here knows, or
// against itself, and such a dispute anchors resolutions (P203 judges a panel by the dispute's parties) and
// violation reports. A signed dispute now names another agent this service knows: commissioned here, or with live
// passport keys bound here (its bundle verified here, whose principal's RPR keys are then bound to it too, P27), so
// the party checks of its resolution see the respondent's keys. The operator token still files a dispute against an
// agent of another service (administrative, D22), and RECORDS_WRITE_POLICY=open checks nothing.

export const DISPUTE = 'dispute_record';

/** Whether the service knows `agentId`: commissioned here, or live passport keys bound here. */
export type AgentKnownLookup = (agentId: string) => Promise<boolean>;

export type RespondentVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: 'self' | 'unknown'; readonly respondent: string };

/** Judges a dispute record's `respondent_agent_id` (schema-checked: an id string). */
export async function judgeRespondent(
  record: Readonly<Record<string, unknown>>,
  known: AgentKnownLookup,
): Promise<RespondentVerdict> {
  const respondent = record['respondent_agent_id'];
  if (typeof respondent !== 'string') return { ok: false, reason: 'unknown', respondent: String(respondent) };
  if (respondent === record['initiator_agent_id']) return { ok: false, reason: 'self', respondent };
  return (await known(respondent)) ? { ok: true } : { ok: false, reason: 'unknown', respondent };
}
