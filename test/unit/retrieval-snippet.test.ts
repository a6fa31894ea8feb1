import { describe, expect, it } from 'vitest';
import { RANKING_POLICY } from '../../src/retrieval/policy.ts';
import { makeSnippet, planSnippets } from '../../src/retrieval/snippet.ts';

const { topChars, otherChars, totalChars, ellipsis } = RANKING_POLICY.snippet;
const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(Math.ceil(n / 27)).slice(0, n);
/** A long content with the matched word far from both ends. */
const longWith = (word: string, before: number, after: number) => `${filler(before)} ${word} ${filler(after)}`;

describe('makeSnippet', () => {
  it('returns short content whole', () => {
    expect(makeSnippet('short text', new Set(['text']), 400)).toEqual({ text: 'short text', truncated: false });
  });

  it('windows around the matched term, ellipsis counted toward the limit', () => {
    const content = longWith('kubernetes', 3_000, 3_000);
    const s = makeSnippet(content, new Set(['kubernet']), 400);
    expect(s.truncated).toBe(true);
    expect(s.text.length).toBeLessThanOrEqual(400);
    expect(s.text).toContain('kubernetes');
    expect(s.text.startsWith(ellipsis)).toBe(true);
    expect(s.text.endsWith(ellipsis)).toBe(true);
  });

  it('uses the room before the match when the match is near the end', () => {
    const content = longWith('rollback', 3_000, 20);
    const s = makeSnippet(content, new Set(['rollback']), 400);
    expect(s.text).toContain('rollback');
    expect(s.text.endsWith(ellipsis)).toBe(false);
    expect(s.text.length).toBeGreaterThan(300);
    expect(s.text.length).toBeLessThanOrEqual(400);
  });

  it('starts at the beginning when nothing matches', () => {
    const s = makeSnippet(filler(1_000), new Set(['absent']), 100);
    expect(s.text.startsWith('lorem')).toBe(true);
    expect(s.text.length).toBeLessThanOrEqual(100);
  });

  it('never exceeds tiny limits', () => {
    for (let limit = 0; limit < 20; limit++) {
      expect(makeSnippet(filler(500), new Set(['dolor']), limit).text.length).toBeLessThanOrEqual(limit);
    }
  });
});

describe('planSnippets', () => {
  const contents = Array.from({ length: 50 }, (_, i) => longWith(`needle${i}`, 5_000, 5_000));
  const stems = new Set(Array.from({ length: 50 }, (_, i) => `needle${i}`));

  for (let topK = 1; topK <= 50; topK++) {
    for (const full of [false, true]) {
      it(`topK ${topK}, full ${full}`, () => {
        const plan = planSnippets(contents.slice(0, topK), stems, full);
        expect(plan.snippets).toHaveLength(topK);
        expect(plan.usedChars).toBe(plan.snippets.reduce((n, s) => n + s.text.length, 0));
        if (full) {
          expect(plan.budgetChars).toBeNull();
          plan.snippets.forEach((s, i) => {
            expect(s).toEqual({ text: contents[i], truncated: false });
          });
          return;
        }
        expect(plan.budgetChars).toBe(totalChars);
        expect(plan.usedChars).toBeLessThanOrEqual(totalChars);
        let left = totalChars;
        plan.snippets.forEach((s, i) => {
          const limit = Math.min(i < 2 ? topChars : otherChars, left);
          expect(s.text.length).toBeLessThanOrEqual(limit);
          expect(s.truncated).toBe(true);
          if (limit >= 100) expect(s.text).toContain(`needle${i}`);
          if (left <= 0) expect(s.text).toBe('');
          left -= s.text.length;
        });
      });
    }
  }

  it('gives whole short contents without using up the budget', () => {
    const plan = planSnippets(['a b c', 'd e f'], new Set(), false);
    expect(plan.snippets).toEqual([
      { text: 'a b c', truncated: false },
      { text: 'd e f', truncated: false },
    ]);
    expect(plan.usedChars).toBe(10);
  });
});
