// P455: the small UTS #39 skeleton, and P383's warning for an id written wholly in Cyrillic or Greek look-alikes.
import { describe, expect, it } from 'vitest';
import { readAlike, skeletonOf, wholeScriptLatinReading } from './confusable-skeleton.ts';
import { lookAlikeIdWarnings, lookAlikeReason } from './look-alike-ids.ts';

describe('P455: skeletons', () => {
  it.each([
    ['a Cyrillic а', 'agent:\u0430lpha'],
    ['a Greek α', 'agent:\u03b1lpha'],
    ['a capital I for l', 'agent:aIpha'],
    ['a digit 1 for l', 'agent:a1pha'],
    ['a zero-width space', 'agent:al\u200bpha'],
    ['fullwidth letters', 'agent:\uff41lpha'],
  ])('%s reads as agent:alpha', (_what, id) => {
    expect(skeletonOf(id)).toBe(skeletonOf('agent:alpha'));
  });

  it('0 and O, rn and m read alike; distinct ids do not', () => {
    expect(readAlike('agent-0ne', 'agent-One')).toBe(true);
    expect(readAlike('agent-modern', 'agent-rnodern')).toBe(true);
    expect(readAlike('agent:alpha', 'agent:alpha')).toBe(false); // one id, not two
    expect(readAlike('agent:alpha', 'agent:beta')).toBe(false);
    expect(readAlike('agent-\u00e9', 'agent-e')).toBe(false); // an accent is seen
  });
});

describe('P455: an id written wholly in look-alikes of Latin letters is named', () => {
  it.each([
    ['Cyrillic', '\u0455\u0441\u043e\u0440\u0435', 'scope'],
    ['Greek capitals', '\u0391\u0392\u0395-7', 'ABE-7'],
  ])('%s: the warning says what it reads as', (_what, id, reading) => {
    expect(wholeScriptLatinReading(id)).toBe(reading);
    expect(lookAlikeReason(id)).toContain(`reads as the Latin "${reading}" (whole-script look-alike)`);
    expect(lookAlikeIdWarnings([['intent.intent_id', id]])).toHaveLength(1);
  });

  it('controls: a Cyrillic word that reads as no Latin one, a plain id, a mixed one named once', () => {
    expect(lookAlikeReason('\u0430\u0433\u0435\u043d\u0442')).toBeUndefined(); // агент: н is no Latin letter
    expect(lookAlikeReason('agent-1l0O')).toBeUndefined(); // printable ASCII: P383's PLAIN test, nothing else
    expect(lookAlikeReason('agent-\u0430lpha')).toBe('mixes Latin with Cyrillic or Greek letters');
  });
});
