/**
 * Which words of a query an entry's text contains, and the text with them marked. The server
 * stems words (FTS5's porter tokenizer) and drops English stop words; this approximates it well
 * enough to show a reader why a hit matched: a word matches when it starts with the query
 * word's stem.
 */

import { h } from './dom.ts';

const STOP = new Set(
  'a an and are as at be but by for from has have he her his i if in into is it its me my no not of on or our she so than that the their them then there these they this to was we were what when where which who why will with you your'.split(
    ' ',
  ),
);

/** At most this many query words are looked for; at most this much text is scanned. */
const MAX_TERMS = 32;
const MAX_TEXT = 20_000;

/** A rough porter stem: enough to match "migrations" and "migrated" against "migration". */
function stem(word: string): string {
  const w = word.toLowerCase();
  if (w.length <= 4) return w;
  return w.replace(/(ations?|ing|ed|es|s|ly|ion)$/, '') || w;
}

/** The distinct query words worth looking for, with their stems. */
export function queryTerms(query: string): { term: string; stem: string }[] {
  const seen = new Set<string>();
  const out: { term: string; stem: string }[] = [];
  for (const raw of query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (raw.length < 2 || STOP.has(raw)) continue;
    const s = stem(raw);
    if (seen.has(s)) continue;
    seen.add(s);
    out.push({ term: raw, stem: s });
    if (out.length >= MAX_TERMS) break;
  }
  return out;
}

const WORD = /[\p{L}\p{N}]+/gu;

/** How often each query word occurs in `text`, most frequent first; words that do not occur are left out. */
export function matchedTerms(query: string, text: string): { term: string; count: number }[] {
  const terms = queryTerms(query);
  const counts = new Map(terms.map((t) => [t.term, 0]));
  for (const m of text.slice(0, MAX_TEXT).matchAll(WORD)) {
    const word = m[0].toLowerCase();
    for (const t of terms) if (word.startsWith(t.stem)) counts.set(t.term, (counts.get(t.term) ?? 0) + 1);
  }
  return [...counts]
    .filter(([, n]) => n > 0)
    .map(([term, count]) => ({ term, count }))
    .sort((a, b) => b.count - a.count);
}

/** `text` with every word that matches a query word in a `<mark>`. */
export function highlighted(text: string, query: string): (Node | string)[] {
  const terms = queryTerms(query);
  if (!terms.length) return [text];
  const out: (Node | string)[] = [];
  let last = 0;
  for (const m of text.slice(0, MAX_TEXT).matchAll(WORD)) {
    const word = m[0].toLowerCase();
    if (!terms.some((t) => word.startsWith(t.stem))) continue;
    const at = m.index ?? 0;
    if (at > last) out.push(text.slice(last, at));
    out.push(h('mark', null, m[0]));
    last = at + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}
