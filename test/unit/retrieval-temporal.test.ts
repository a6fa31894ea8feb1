import { describe, expect, it } from 'vitest';
import { rewriteTemporal } from '../../src/retrieval/temporal.ts';

// A Wednesday afternoon: the week began on Monday 2026-03-09.
const asOf = new Date('2026-03-11T15:30:00.000Z');
const day = (iso: string) => new Date(`${iso}T00:00:00.000Z`);

function range(query: string) {
  const { timeRange, queryUsed } = rewriteTemporal(query, asOf);
  return {
    from: timeRange?.from?.toISOString().slice(0, 10) ?? null,
    to: timeRange?.to?.toISOString().slice(0, 10) ?? null,
    phrase: timeRange?.phrase ?? null,
    queryUsed,
  };
}

describe('rewriteTemporal', () => {
  it.each([
    ['today', '2026-03-11', '2026-03-12'],
    ['yesterday', '2026-03-10', '2026-03-11'],
    ['this week', '2026-03-09', '2026-03-16'],
    ['last week', '2026-03-02', '2026-03-09'],
    ['this month', '2026-03-01', '2026-04-01'],
    ['last month', '2026-02-01', '2026-03-01'],
    ['this year', '2026-01-01', '2027-01-01'],
    ['last year', '2025-01-01', '2026-01-01'],
    ['3 days ago', '2026-03-08', '2026-03-09'],
    ['two days ago', '2026-03-09', '2026-03-10'],
    ['last 7 days', '2026-03-05', '2026-03-12'],
    ['past 3 days', '2026-03-09', '2026-03-12'],
    ['in the last 2 weeks', '2026-02-26', '2026-03-12'],
    ['since 2026-03-01', '2026-03-01', null],
    ['before 2026-03-01', null, '2026-03-01'],
    ['in March 2026', '2026-03-01', '2026-04-01'],
    ['in March', '2026-03-01', '2026-04-01'],
    ['in May', '2025-05-01', '2025-06-01'],
    ['in 2025', '2025-01-01', '2026-01-01'],
    ['on 2026-03-04', '2026-03-04', '2026-03-05'],
    ['on March 4, 2026', '2026-03-04', '2026-03-05'],
    ['between 2026-03-01 and 2026-03-04', '2026-03-01', '2026-03-05'],
    ['between January 2026 and February 2026', '2026-01-01', '2026-03-01'],
    ['last weekend', '2026-03-07', '2026-03-09'],
  ])('%s', (phrase, from, to) => {
    const r = range(`what did we decide ${phrase} about the api`);
    expect([r.from, r.to]).toEqual([from, to]);
    expect(r.phrase?.toLowerCase()).toContain(phrase.split(' ').at(-1)!.toLowerCase());
    expect(r.queryUsed).toBe('what did we decide about the api');
  });

  it('gives exclusive UTC day boundaries', () => {
    const { timeRange } = rewriteTemporal('notes from yesterday', asOf);
    expect(timeRange?.from).toEqual(day('2026-03-10'));
    expect(timeRange?.to).toEqual(day('2026-03-11'));
  });

  it('treats Sunday as the end of the week (weeks start Monday)', () => {
    const sunday = new Date('2026-03-15T23:59:00.000Z');
    const { timeRange } = rewriteTemporal('this week', sunday);
    expect(timeRange?.from).toEqual(day('2026-03-09'));
    expect(timeRange?.to).toEqual(day('2026-03-16'));
  });

  it('leaves queries without a time phrase alone', () => {
    expect(rewriteTemporal('deploy checklist', asOf)).toEqual({ timeRange: null, queryUsed: 'deploy checklist' });
  });

  it('does not read the verb "may" or the word "march" as months', () => {
    expect(rewriteTemporal('the team in may decide to march on', asOf).timeRange).toBeNull();
  });

  it('ignores impossible dates rather than guessing', () => {
    expect(rewriteTemporal('on 2026-02-30', asOf).timeRange).toBeNull();
  });

  it('leaves an empty query when the query is only a time phrase', () => {
    expect(rewriteTemporal('last week', asOf).queryUsed).toBe('');
    expect(rewriteTemporal('What happened yesterday?', asOf).queryUsed).toBe('What happened?');
  });

  it('takes the first phrase and keeps the rest as words', () => {
    const r = range('since 2026-01-05 and also today');
    expect(r.phrase).toBe('since 2026-01-05');
    expect(r.queryUsed).toBe('and also today');
  });
});
