import { RANKING_POLICY, type RankingPolicy } from './policy.ts';
import { capWord, foldText, lightStem } from './query.ts';

export interface Snippet {
  text: string;
  /** True when `text` is not the whole content. */
  truncated: boolean;
}

const WORD = /[\p{L}\p{N}]+/gu;
/** An ASCII word folds by lower-casing alone: NFKD leaves it as it is and it has no marks. */
const ASCII = /^[A-Za-z0-9]*$/;

/**
 * Start offsets of the words of `content` whose stem is one of `stems`, among the words
 * that start in its first `text.snippetWindowChars` characters. Each word is normalized
 * from its first `text.wordMaxChars` characters only, as tokenize counts it.
 */
function matchOffsets(content: string, stems: ReadonlySet<string>, policy: RankingPolicy): number[] {
  const out: number[] = [];
  if (stems.size === 0) return out;
  const { snippetWindowChars, wordMaxChars } = policy.text;
  // lightStem keeps a word's first two characters, so a word whose first two no stem shares
  // cannot match: most words of a long text are skipped before they are stemmed.
  const heads = new Set([...stems].map((s) => s.slice(0, 2)));
  // Slicing first keeps the word search itself inside the window (a word can be the whole text).
  for (const m of content.slice(0, snippetWindowChars).matchAll(WORD)) {
    const raw = capWord(m[0], wordMaxChars);
    const word = ASCII.test(raw) ? raw.toLowerCase() : capWord(foldText(raw), wordMaxChars);
    if (!heads.has(word.slice(0, 2))) continue;
    if (stems.has(lightStem(word))) out.push(m.index);
    if (out.length >= 500) break;
  }
  return out;
}

/**
 * A window of at most `limit` characters around the densest run of matched terms, marked
 * with an ellipsis at each cut end. The ellipses count toward the limit.
 *
 * @example
 * makeSnippet('… long text … the deploy failed on Friday …', new Set(['deploy']), 40)
 * // { text: '…the deploy failed on Friday…', truncated: true }
 */
export function makeSnippet(
  content: string,
  stems: ReadonlySet<string>,
  limit: number,
  policy: RankingPolicy = RANKING_POLICY,
  length: number = content.length,
): Snippet {
  // `content` may be the start of a longer text of `length` characters (see snippetSource).
  if (length <= limit) return { text: content, truncated: false };
  if (limit <= 0) return { text: '', truncated: true };
  const mark = policy.snippet.ellipsis;
  // Too small for marks around a window: plain cut.
  if (limit < 4 * mark.length + 4) return { text: content.slice(0, limit), truncated: true };

  // Anchor the window on the match that has the most other matches after it within reach.
  const offsets = matchOffsets(content, stems, policy);
  let anchor = 0;
  let bestCount = 0;
  for (let i = 0; i < offsets.length; i++) {
    let count = 0;
    for (let j = i; j < offsets.length && offsets[j]! < offsets[i]! + limit * 0.8; j++) count++;
    if (count > bestCount) {
      bestCount = count;
      anchor = offsets[i]!;
    }
  }
  // Some lead-in before the first matched word gives it context.
  let start = Math.max(0, anchor - Math.floor(limit * 0.15));
  const room = (s: number, e: number) => limit - (s > 0 ? mark.length : 0) - (e < length ? mark.length : 0);
  let end = Math.min(length, start + limit - (start > 0 ? mark.length : 0));
  if (end >= length) {
    // The window reaches the end: spend the unused room before it instead.
    end = length;
    start = Math.max(0, end - (limit - mark.length));
  }
  end = Math.min(end, start + room(start, end));

  // Cut at word boundaries where that loses little.
  if (start > 0 && /[\p{L}\p{N}]/u.test(content[start - 1]!)) {
    const space = content.slice(start, anchor).search(/\s/u);
    if (space >= 0 && space < 40) start += space + 1;
  }
  if (end < length && /[\p{L}\p{N}]/u.test(content[end]!)) {
    const lastSpace = content.slice(start, end).search(/\s\S*$/u);
    if (lastSpace > (end - start) * 0.6) end = start + lastSpace;
  }
  // Never split a surrogate pair.
  if (end < length && /[\uD800-\uDBFF]/.test(content[end - 1] ?? '')) end--;
  if (start > 0 && /[\uDC00-\uDFFF]/.test(content[start] ?? '')) start++;

  const body = content.slice(start, end).trim();
  const text = `${start > 0 ? mark : ''}${body}${end < length ? mark : ''}`;
  return { text, truncated: true };
}

export interface SnippetPlan {
  snippets: Snippet[];
  /** Sum of the snippets' lengths. */
  usedChars: number;
  /** The total budget, or null with `full`. */
  budgetChars: number | null;
}

/**
 * How much of an entry's start its snippet can need: matches are looked for in the first
 * `snippetWindowChars` characters, and a window of at most `topChars` is cut around one (a
 * few characters more, to see whether the cut splits a word). Recall reads this much of each
 * candidate, not whole texts of up to 100,000 characters.
 */
export function snippetSource(policy: RankingPolicy = RANKING_POLICY): number {
  return policy.text.snippetWindowChars + policy.snippet.topChars + 64;
}

/**
 * Snippets for hits in rank order under the budget rules of CONTRACT §6.8: the top 2 get up
 * to 4,000 characters, the others 400, 12,000 in all; hits past the spent budget get an
 * empty snippet marked truncated. `full` returns whole contents and no budget.
 *
 * @example
 * planSnippets(['short', 'x'.repeat(5000)], new Set(), false).snippets[1].text.length // 4000
 */
export function planSnippets(
  contents: readonly string[],
  stems: ReadonlySet<string>,
  full: boolean,
  policy: RankingPolicy = RANKING_POLICY,
  lengths: readonly number[] = contents.map((c) => c.length),
): SnippetPlan {
  if (full) {
    const snippets = contents.map((text) => ({ text, truncated: false }));
    return { snippets, usedChars: contents.reduce((n, c) => n + c.length, 0), budgetChars: null };
  }
  const { topCount, topChars, otherChars, totalChars } = policy.snippet;
  let left = totalChars;
  const snippets = contents.map((content, i) => {
    const limit = Math.min(i < topCount ? topChars : otherChars, left);
    const snippet = makeSnippet(content, stems, limit, policy, lengths[i]);
    left -= snippet.text.length;
    return snippet;
  });
  return { snippets, usedChars: totalChars - left, budgetChars: totalChars };
}
