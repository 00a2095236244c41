// The agent lifecycle state machine and the body of POST /v2/lifecycle/transition.
// Implements SPEC.md "States and transitions" (four moves only) and D16 (transition body, 409 with moves).
import { DEFAULT_MAX_CLOCK_SKEW_MS, dateTimeInstant, type ProtocolProfile } from '@proto/core';
import { isJsonObject } from './body.ts';
import { badBody, recordIdInvalid } from './errors.ts';
import { isValidId } from './ids.ts';

export const LIFECYCLE_STATES = ['commissioned', 'active', 'declining', 'decommissioned'] as const;
export type LifecycleState = (typeof LIFECYCLE_STATES)[number];

/**
 * SPEC.md's machine, exactly: upstream SDKs also allow commissioned → decommissioned and
 * declining → active (PROTOCOL §9.2); the project spec and D16 do not.
 */
export const LIFECYCLE_MACHINE: Readonly<Record<LifecycleState, readonly LifecycleState[]>> = Object.freeze({
  commissioned: ['active'],
  active: ['declining', 'decommissioned'],
  declining: ['decommissioned'],
  decommissioned: [],
});

/**
 * P447: the states a vitality report of an agent in `current` may state. A report's `state` is stored, not applied
 * (moves go through POST /v2/lifecycle/transition, signed, timed and atomic, D16), so it states the state the agent is
 * in; SPEC is silent on reports, and upstream's gateway applies a report's state as a move, which this service does
 * not. One more: `decommissioned`, where the machine allows that move, for the agent's final report, because the
 * decommissioning record is itself the move (D16) and a final report prepared with it may be posted before it.
 * `decommissioned` itself reports nothing else (P379).
 */
export function reportableStates(current: LifecycleState): readonly LifecycleState[] {
  return LIFECYCLE_MACHINE[current].includes('decommissioned') ? [current, 'decommissioned'] : [current];
}

export const isLifecycleState = (value: unknown): value is LifecycleState =>
  typeof value === 'string' && (LIFECYCLE_STATES as readonly string[]).includes(value);

export interface TransitionRequest {
  readonly agent_id: string;
  readonly to_state: LifecycleState;
  readonly from_state?: LifecycleState;
  readonly reason?: string;
  readonly timestamp?: string;
}

const MAX_REASON_LENGTH = 1024;

const isState = isLifecycleState;

/**
 * The move's time as the history records it, or undefined when it is no PROTOCOL date-time (core's reader, P221:
 * the schemas' check, then the instant it names). A leap second (`…T23:59:60Z`) has no POSIX instant of its own, so
 * it is read on the move's safe side (P178's rule, P187): into `active` is a time before which the agent does not
 * count (the next midnight); every other move ends `active` or `declining`, a time after which it stops counting
 * (the last millisecond before). A time written as ECMAScript reads one (`T`, `Z` or `±HH:MM`, either case) is recorded
 * as sent; any other form (a leap second, a space, `+05`, `+0530`) as the instant read, in UTC, so every reader of
 * the history reads the one instant.
 */
export function recordedTime(timestamp: string, to: unknown): string | undefined {
  const at = dateTimeInstant(timestamp, to === 'active' ? 'latest' : 'earliest');
  if (Number.isNaN(at)) return undefined;
  return AS_SENT.test(timestamp) ? timestamp : new Date(at).toISOString();
}

/** A date-time Date.parse reads as written, which the history keeps as sent. */
const AS_SENT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:[0-5]\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)$/i;

/**
 * Whether the recorded time lies beyond the clock skew ahead of `now` (P203). A signed move dated ahead has not
 * happened: a decommissioning dated 2999 would keep the agent counting in every reader's view until then. The bound
 * is the one revocations, revocation lists and passports are judged by (5 minutes, P173); a past time is the
 * signer's statement and is kept as sent.
 */
function isAheadOfClock(recorded: string, now: number): boolean {
  return Date.parse(recorded) - now > DEFAULT_MAX_CLOCK_SKEW_MS;
}

/** JSON Schema of the transition body (documentation; `readTransitionRequest` enforces the same rules). */
export const transitionBodySchema = {
  type: 'object',
  required: ['agent_id', 'to_state'],
  additionalProperties: false,
  properties: {
    agent_id: { type: 'string', pattern: '^[\\w:.\\-]{1,256}$' },
    to_state: { type: 'string', enum: [...LIFECYCLE_STATES] },
    from_state: {
      type: 'string',
      enum: [...LIFECYCLE_STATES],
      description: 'When given, the move applies only if this is still the current state (else 409).',
    },
    reason: { type: 'string', minLength: 1, maxLength: MAX_REASON_LENGTH },
    timestamp: {
      type: 'string',
      format: 'date-time',
      description:
        "Time of the move (default: now); at most 5 minutes ahead of the service clock, and not before the agent's latest move (409).",
    },
    composite_sig: {
      type: 'object',
      description:
        'Signed transition statement: composite signature over the rest of the body (PROTO.v2.Lifecycle).',
    },
  },
} as const;

/** Validates the transition body; throws the HttpError to answer (400 E002; P518: a bad agent_id too). */
export function readTransitionRequest(
  profile: ProtocolProfile,
  body: unknown,
  now: number = Date.now(),
): TransitionRequest {
  if (!isJsonObject(body)) {
    throw badBody(
      profile,
      'Request body must be a JSON object {agent_id, to_state, from_state?, reason?, timestamp?}',
    );
  }
  const issues: { path: string; message: string }[] = [];
  const allowed = new Set(Object.keys(transitionBodySchema.properties));
  for (const key of Object.keys(body)) {
    if (!allowed.has(key)) issues.push({ path: '', message: `must NOT have additional property '${key}'` });
  }
  const { agent_id, to_state, from_state, reason, timestamp } = body;
  if (agent_id === undefined) issues.push({ path: '', message: "must have required property 'agent_id'" });
  else if (typeof agent_id !== 'string') issues.push({ path: '/agent_id', message: 'must be string' });
  else if (!isValidId(agent_id)) throw recordIdInvalid(profile, 'agent_id', agent_id);
  const states = LIFECYCLE_STATES.map((s) => `"${s}"`).join(', ');
  if (to_state === undefined) issues.push({ path: '', message: "must have required property 'to_state'" });
  else if (!isState(to_state)) issues.push({ path: '/to_state', message: `must be one of: ${states}` });
  if (from_state !== undefined && !isState(from_state)) {
    issues.push({ path: '/from_state', message: `must be one of: ${states}` });
  }
  if (
    reason !== undefined &&
    (typeof reason !== 'string' || reason.length === 0 || reason.length > MAX_REASON_LENGTH)
  ) {
    issues.push({ path: '/reason', message: `must be a string of 1 to ${MAX_REASON_LENGTH} characters` });
  }
  const recorded = typeof timestamp === 'string' ? recordedTime(timestamp, to_state) : undefined;
  if (timestamp !== undefined && recorded === undefined) {
    issues.push({ path: '/timestamp', message: 'must be an RFC 3339 date-time, e.g. 2026-05-01T08:00:00Z' });
  } else if (recorded !== undefined && isAheadOfClock(recorded, now)) {
    issues.push({
      path: '/timestamp',
      message: `must not lie more than ${DEFAULT_MAX_CLOCK_SKEW_MS / 60_000} minutes ahead of the service's clock (${new Date(now).toISOString()}): a move is recorded once it has happened`,
    });
  }
  if (issues.length > 0) {
    const shown = issues.map((i) => `${i.path === '' ? '(root)' : i.path} ${i.message}`).join('; ');
    throw badBody(profile, `Invalid transition request: ${shown}`, issues);
  }
  return {
    agent_id: agent_id as string,
    to_state: to_state as LifecycleState,
    ...(from_state === undefined ? {} : { from_state: from_state as LifecycleState }),
    ...(reason === undefined ? {} : { reason: reason as string }),
    ...(recorded === undefined ? {} : { timestamp: recorded }),
  };
}
