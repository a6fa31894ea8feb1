import { RANKING_POLICY } from './policy.ts';

/**
 * Words as FTS5's `unicode61` tokenizer sees them: runs of letters and digits, lower-cased,
 * diacritics removed. Everything else (quotes, `*`, `:`, parentheses, `-`) separates words,
 * which is what keeps FTS5 syntax in user text from ever being interpreted.
 *
 * @example tokenize('Café "NEAR(x)" col:y') // ['cafe', 'near', 'x', 'col', 'y']
 */
export function tokenize(text: string): string[] {
  const folded = text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
  return folded.match(/[\p{L}\p{N}]+/gu) ?? [];
}

export interface QueryTerms {
  /** Distinct search terms in query order. */
  terms: string[];
  /** True when every word was a stop word and they were kept rather than searching nothing. */
  onlyStopWords: boolean;
}

/**
 * The distinct search terms of a query: stop words dropped, unless the query has nothing
 * else (then searching the stop words beats searching nothing).
 *
 * @example extractTerms('What did Ana decide about the API?') // { terms: ['ana', 'decide', 'api'], onlyStopWords: false }
 */
export function extractTerms(text: string, stopWords: ReadonlySet<string> = RANKING_POLICY.stopWords): QueryTerms {
  const words = [...new Set(tokenize(text))];
  const terms = words.filter((w) => !stopWords.has(w));
  if (terms.length > 0 || words.length === 0) return { terms, onlyStopWords: false };
  return { terms: words, onlyStopWords: true };
}

/** Quotes one term as an FTS5 string: inner double quotes doubled, so it is a word, never syntax. */
export function quoteFtsTerm(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

/**
 * The FTS5 MATCH expression for a list of terms: each quoted, OR-joined; null when there
 * is nothing to search (the caller then skips the keyword arm).
 *
 * @example buildMatchExpression(['near', 'x']) // '"near" OR "x"'
 */
export function buildMatchExpression(terms: readonly string[]): string | null {
  const quoted = terms.filter((t) => t.length > 0).map(quoteFtsTerm);
  return quoted.length > 0 ? quoted.join(' OR ') : null;
}

const SUFFIXES = [
  'ational',
  'ization',
  'fulness',
  'iveness',
  'ations',
  'ation',
  'ments',
  'ment',
  'ings',
  'ing',
  'edly',
  'ies',
  'ied',
  'ers',
  'er',
  'ed',
  'es',
  'ly',
  's',
];

/**
 * A light suffix-stripping stem for matching in JavaScript (snippets, similarity, tags).
 * FTS5 applies the real Porter stemmer; this only needs `painting` and `paints` to meet `paint`.
 *
 * @example lightStem('researching') // 'research'
 */
export function lightStem(word: string): string {
  let stem = stemCache.get(word);
  if (stem === undefined) {
    // Vocabularies are Zipfian: a small cache answers almost every lookup of a recall's
    // candidates (thousands of words each time).
    if (stemCache.size >= STEM_CACHE_MAX) stemCache.clear();
    stem = computeStem(word);
    stemCache.set(word, stem);
  }
  return stem;
}

const STEM_CACHE_MAX = 50_000;
const stemCache = new Map<string, string>();

function computeStem(word: string): string {
  if (word.length <= 3 || /^\p{N}+$/u.test(word)) return word;
  for (const suffix of SUFFIXES) {
    if (word.endsWith(suffix) && word.length - suffix.length >= 3) {
      const stem = word.slice(0, -suffix.length);
      // "ies"/"ied" came from a "y" (studies → study); a doubled consonant from "-ing"/"-ed" is folded (running → run).
      if (suffix === 'ies' || suffix === 'ied') return `${stem}y`;
      if ((suffix === 'ing' || suffix === 'ed') && /([^aeiouls])\1$/.test(stem)) return stem.slice(0, -1);
      return stem.endsWith('e') && stem.length > 3 ? stem.slice(0, -1) : stem;
    }
  }
  return word.endsWith('e') && word.length > 3 ? word.slice(0, -1) : word;
}

/**
 * The stemmed content words of a text, for similarity and coverage.
 *
 * @example contentStems('The cats are painting') // Set { 'cat', 'paint' }
 */
export function contentStems(text: string, stopWords: ReadonlySet<string> = RANKING_POLICY.stopWords): Set<string> {
  const out = new Set<string>();
  for (const w of tokenize(text)) if (!stopWords.has(w)) out.add(lightStem(w));
  return out;
}
