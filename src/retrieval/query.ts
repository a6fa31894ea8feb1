import { LruCache } from './lru.ts';
import { RANKING_POLICY, type RankingPolicy } from './policy.ts';

const WORD = /[\p{L}\p{N}]+/gu;
const SPACE = /\s/;
const NOT_WORD = /[^\p{L}\p{N}\p{M}]/u;
/** Text is normalized a piece at a time so that reading stops as soon as the window is full. */
const PIECE_CHARS = 128;

const isSurrogate = (code: number) => code >= 0xd800 && code <= 0xdfff;
const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** Lower-cased NFKD with the marks removed: diacritics gone, as FTS5's remove_diacritics does. */
export function foldText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

/** The first `max` UTF-16 units of a word, never half a surrogate pair. */
export function capWord(word: string, max: number = RANKING_POLICY.text.wordMaxChars): string {
  if (word.length <= max) return word;
  return word.slice(0, isHighSurrogate(word.charCodeAt(max - 1)) ? max - 1 : max);
}

/**
 * Where a piece starting at `from` should end when the text goes on past `to`: after its
 * last space, else after its last other separator, so that no word is cut in two; -1 when
 * the whole piece is one word.
 */
function pieceEnd(text: string, from: number, to: number): number {
  for (let i = to - 1; i > from; i--) if (SPACE.test(text[i]!)) return i + 1;
  for (let i = to - 1; i > from; i--) {
    if (!isSurrogate(text.charCodeAt(i)) && NOT_WORD.test(text[i]!)) return i + 1;
  }
  return -1;
}

/**
 * Words as FTS5's `unicode61` tokenizer sees them: runs of letters and digits, lower-cased,
 * diacritics removed. Everything else (quotes, `*`, `:`, parentheses, `-`) separates words,
 * which is what keeps FTS5 syntax in user text from ever being interpreted.
 *
 * Only the head of a long text is read (`text.windowChars`, counted before and after
 * normalization), and a word longer than `text.wordMaxChars` counts as its beginning, so the
 * work is bounded whatever the text: some characters normalize to many.
 *
 * @example tokenize('Café "NEAR(x)" col:y') // ['cafe', 'near', 'x', 'col', 'y']
 */
export function tokenize(text: string, limits: RankingPolicy['text'] = RANKING_POLICY.text): string[] {
  const out: string[] = [];
  const rawEnd = Math.min(text.length, limits.windowChars);
  let folded = 0;
  let at = 0;
  while (at < rawEnd && folded < limits.windowChars) {
    let end = Math.min(text.length, at + PIECE_CHARS);
    let oneWord = false;
    if (end < text.length) {
      const cut = pieceEnd(text, at, end);
      if (cut > at) {
        end = cut;
      } else {
        oneWord = true;
        if (isHighSurrogate(text.charCodeAt(end - 1))) end--;
      }
    }
    const piece = foldText(text.slice(at, end));
    folded += piece.length;
    for (const w of piece.match(WORD) ?? []) out.push(capWord(w, limits.wordMaxChars));
    if (oneWord) {
      // The rest of that word adds nothing its capped beginning did not; past the window
      // nothing is read, so the search for the word's end stops there too.
      const next = text.slice(end, rawEnd).search(NOT_WORD);
      at = next < 0 ? rawEnd : end + next;
    } else {
      at = end;
    }
  }
  return out;
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
  // A term tokenize cut short searches as a prefix, so it still finds the whole word FTS5 indexed.
  const capped = RANKING_POLICY.text.wordMaxChars - 1;
  const quoted = terms
    .filter((t) => t.length > 0)
    .map((t) => (t.length >= capped ? `${quoteFtsTerm(t)}*` : quoteFtsTerm(t)));
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
    stem = computeStem(word);
    stemCache.set(word, stem);
  }
  return stem;
}

/**
 * Stems already computed. Vocabularies are Zipfian: a small cache answers almost every
 * lookup of a recall's candidates (thousands of words each time). It is shared by every
 * workspace, so it forgets the least recently used words first: one workspace's new words
 * cannot wipe out the words the others keep using.
 */
export const stemCache = new LruCache<string, string>(50_000);

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
 * The stemmed content words of a text, for similarity and coverage: those of its first
 * `text.windowChars` characters, at most `text.stemsMax` of them (similarity compares these
 * sets pairwise, so their size is what it costs).
 *
 * @example contentStems('The cats are painting') // Set { 'cat', 'paint' }
 */
export function contentStems(text: string, policy: RankingPolicy = RANKING_POLICY): Set<string> {
  const out = new Set<string>();
  for (const w of tokenize(text, policy.text)) {
    if (policy.stopWords.has(w)) continue;
    out.add(lightStem(w));
    if (out.size >= policy.text.stemsMax) break;
  }
  return out;
}
