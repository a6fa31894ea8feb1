import { describe, expect, it } from 'vitest';
import { buildMatchExpression, extractTerms, lightStem, quoteFtsTerm, tokenize } from '../../src/retrieval/query.ts';

describe('tokenize', () => {
  it('splits like unicode61: letters and digits, lower-cased, diacritics removed', () => {
    expect(tokenize('Café "NEAR(x)" col:y   v2.0')).toEqual(['cafe', 'near', 'x', 'col', 'y', 'v2', '0']);
  });
});

describe('extractTerms', () => {
  it('drops stop words and duplicates', () => {
    expect(extractTerms('What did Ana decide about the API, and the api?')).toEqual({
      terms: ['ana', 'decide', 'api'],
      onlyStopWords: false,
    });
  });

  it('keeps the stop words when there is nothing else', () => {
    expect(extractTerms('what is this')).toEqual({ terms: ['what', 'is', 'this'], onlyStopWords: true });
  });

  it('returns nothing for syntax alone', () => {
    for (const q of ['"', '*', '-', '()', '^', ':']) expect(extractTerms(q).terms).toEqual([]);
  });
});

describe('buildMatchExpression', () => {
  it('quotes every term and OR-joins them', () => {
    expect(buildMatchExpression(['deploy', 'friday'])).toBe('"deploy" OR "friday"');
  });

  it('doubles inner quotes', () => {
    expect(quoteFtsTerm('say "hi"')).toBe('"say ""hi"""');
  });

  it.each([
    ['"', null],
    ['*', null],
    ['-', null],
    ['NEAR(', '"near"'],
    ['col:x', '"col" OR "x"'],
    ['AND (', '"and"'],
    ['a OR b NOT c', '"b" OR "c"'],
    ['"unterminated', '"unterminated"'],
    ['x* ^y', '"x" OR "y"'],
  ])('turns %j into words only', (query, expected) => {
    expect(buildMatchExpression(extractTerms(query).terms)).toBe(expected);
  });

  it('gives null when there are no terms', () => {
    expect(buildMatchExpression([])).toBeNull();
  });
});

describe('lightStem', () => {
  it('meets inflected forms at one stem', () => {
    expect(new Set(['paint', 'painting', 'paints', 'painted'].map(lightStem)).size).toBe(1);
    expect(lightStem('studies')).toBe(lightStem('study'));
    expect(lightStem('running')).toBe('run');
    expect(lightStem('2026')).toBe('2026');
  });
});
