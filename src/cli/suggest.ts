/** Edit distance (insertions, deletions, substitutions) between two short strings. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * The candidate a mistyped word most likely meant: the closest within two edits, else the
 * first one it is a prefix of (`tok` → `token`); undefined when none is that close, so a
 * word far from everything gets no misleading guess.
 */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  let best: { candidate: string; d: number } | undefined;
  for (const candidate of candidates) {
    const d = distance(word.toLowerCase(), candidate.toLowerCase());
    if (d <= 2 && (!best || d < best.d)) best = { candidate, d };
  }
  if (best) return best.candidate;
  return word.length > 0 ? candidates.find((c) => c.startsWith(word)) : undefined;
}

/** "; did you mean X?" when a candidate is close to `word`, else nothing. */
export function didYouMean(word: string, candidates: readonly string[], format = (c: string) => c): string {
  const guess = nearest(word, candidates);
  return guess === undefined ? '' : `; did you mean ${format(guess)}?`;
}
