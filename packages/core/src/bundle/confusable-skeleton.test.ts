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

describe('P520: the table generated from confusables.txt 13.0.0 (Armenian, Cherokee, Latin; fullwidth and math by NFKD)', () => {
  it.each([
    ['an Armenian օ', 'agent:\u0585mega', 'agent:omega'],
    ['an Armenian ս', 'agent:\u057dser', 'agent:user'],
    ['a Cherokee Ꭺ', 'AGENT-\u13aa', 'AGENT-A'],
    ['a Latin ɑ (alpha)', 'agent:\u0251lpha', 'agent:alpha'],
    ['a dotless ı', 'agent:\u0131ndex', 'agent:index'],
    ['fullwidth letters', 'agent:\uff4f\uff4d\uff45\uff47\uff41', 'agent:omega'],
    ['mathematical bold letters', 'agent:\u{1d428}\u{1d426}\u{1d41e}\u{1d420}\u{1d41a}', 'agent:omega'],
  ])('%s reads as its Latin twin', (_what, id, latin) => {
    expect(readAlike(id, latin)).toBe(true);
  });

  it.each([
    ['Armenian', '\u0585\u0578', 'on'],
    ['Cherokee', '\u13aa\u13a2', 'AT'],
  ])('an id written wholly in %s look-alikes is named with its reading', (_what, id, reading) => {
    expect(wholeScriptLatinReading(id)).toBe(reading);
    expect(lookAlikeReason(id)).toContain(`reads as the Latin "${reading}" (whole-script look-alike)`);
  });

  it('an id mixing Latin with Armenian or Cherokee letters is named', () => {
    expect(lookAlikeReason('agent-\u0585mega')).toBe('mixes Latin with Armenian or Cherokee letters');
  });
});
