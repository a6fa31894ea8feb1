/**
 * Temporal rewrite (CONTRACT §6.1): finds an English time phrase in a recall query, turns it
 * into a UTC time range relative to `asOf`, and removes it from the query. Days are UTC days,
 * weeks start on Monday, and `to` is exclusive.
 */

export interface TimeRange {
  from: Date | null;
  to: Date | null;
  /** The phrase as the user wrote it. */
  phrase: string;
}

export interface TemporalRewrite {
  timeRange: TimeRange | null;
  /** The query with the time phrase removed (the query itself when there was none). */
  queryUsed: string;
}

const DAY = 86_400_000;
const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const MONTH_ABBREV = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const NUMBER_WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
};

type Span = { from: number | null; to: number | null };

const dayStart = (ms: number) => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
};
/** Monday 00:00 UTC of the week containing `ms`. */
const weekStart = (ms: number) => dayStart(ms) - ((new Date(ms).getUTCDay() + 6) % 7) * DAY;
const monthStart = (year: number, month: number) => Date.UTC(year, month, 1);

function monthIndex(word: string): number {
  const w = word.toLowerCase().replace(/\.$/, '');
  const full = MONTHS.indexOf(w);
  if (full >= 0) return full;
  return w === 'sept' ? 8 : MONTH_ABBREV.indexOf(w);
}

function parseCount(word: string): number | null {
  const n = /^\d+$/.test(word) ? Number(word) : NUMBER_WORDS[word.toLowerCase()];
  return n !== undefined && Number.isInteger(n) && n >= 1 && n <= 10_000 ? n : null;
}

/** A calendar day as a span, or null when it does not exist (2026-02-30). */
function daySpan(year: number, month: number, day: number): Span | null {
  const ms = Date.UTC(year, month, day);
  const d = new Date(ms);
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month || d.getUTCDate() !== day) return null;
  return { from: ms, to: ms + DAY };
}

const MONTH_RE = `(?:${MONTHS.join('|')}|${MONTH_ABBREV.join('|')}|sept)\\.?`;
const YEAR_RE = '(?:19|20|21)\\d{2}';

/**
 * A date written in one of the forms people and agents use: `2026-03-04`, `March 4, 2026`,
 * `4 March 2026`, `March 2026`, `2026`. Parsed into the span it covers.
 */
const POINT_RE = [
  `\\d{4}-\\d{2}-\\d{2}`,
  `${MONTH_RE}\\s+\\d{1,2}(?:st|nd|rd|th)?,?\\s+${YEAR_RE}`,
  `\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH_RE},?\\s+${YEAR_RE}`,
  `${MONTH_RE},?\\s+${YEAR_RE}`,
  YEAR_RE,
].join('|');

function parsePoint(text: string): Span | null {
  const t = text.trim().toLowerCase();
  let m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(t);
  if (m) return daySpan(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  m = /^([a-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})$/.exec(t);
  if (m) return daySpan(Number(m[3]), monthIndex(m[1]!), Number(m[2]));
  m = /^(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?([a-z]+)\.?,?\s+(\d{4})$/.exec(t);
  if (m) return daySpan(Number(m[3]), monthIndex(m[2]!), Number(m[1]));
  m = /^([a-z]+)\.?,?\s+(\d{4})$/.exec(t);
  if (m) {
    const month = monthIndex(m[1]!);
    return month < 0 ? null : { from: monthStart(Number(m[2]), month), to: monthStart(Number(m[2]), month + 1) };
  }
  m = /^(\d{4})$/.exec(t);
  if (m) return { from: Date.UTC(Number(m[1]), 0, 1), to: Date.UTC(Number(m[1]) + 1, 0, 1) };
  return null;
}

interface Rule {
  re: RegExp;
  resolve(m: RegExpExecArray, asOf: number): Span | null;
}

const unitSpan = (unit: string, n: number, today: number): Span => {
  // "last N <unit>" runs up to the end of today and covers N units including today.
  const u = unit.toLowerCase().replace(/s$/, '');
  const end = today + DAY;
  if (u === 'day') return { from: today - (n - 1) * DAY, to: end };
  if (u === 'week') return { from: today - (7 * n - 1) * DAY, to: end };
  const d = new Date(today);
  if (u === 'month') return { from: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - n, d.getUTCDate() + 1), to: end };
  return { from: Date.UTC(d.getUTCFullYear() - n, d.getUTCMonth(), d.getUTCDate() + 1), to: end };
};

const agoSpan = (unit: string, n: number, today: number): Span => {
  const u = unit.toLowerCase().replace(/s$/, '');
  if (u === 'day') return { from: today - n * DAY, to: today - (n - 1) * DAY };
  if (u === 'week') {
    const w = weekStart(today) - 7 * n * DAY;
    return { from: w, to: w + 7 * DAY };
  }
  const d = new Date(today);
  if (u === 'month') {
    return {
      from: monthStart(d.getUTCFullYear(), d.getUTCMonth() - n),
      to: monthStart(d.getUTCFullYear(), d.getUTCMonth() - n + 1),
    };
  }
  return { from: Date.UTC(d.getUTCFullYear() - n, 0, 1), to: Date.UTC(d.getUTCFullYear() - n + 1, 0, 1) };
};

const COUNT_RE = `(\\d{1,4}|${Object.keys(NUMBER_WORDS).join('|')})`;

/** Checked in order; when several match, the leftmost wins, then the longest. */
const RULES: Rule[] = [
  {
    re: new RegExp(`\\bbetween\\s+(${POINT_RE})\\s+and\\s+(${POINT_RE})\\b`, 'gi'),
    resolve: (m) => {
      const a = parsePoint(m[1]!);
      const b = parsePoint(m[2]!);
      return a && b ? { from: a.from, to: b.to } : null;
    },
  },
  {
    re: new RegExp(`\\bfrom\\s+(${POINT_RE})\\s+(?:to|until|till)\\s+(${POINT_RE})\\b`, 'gi'),
    resolve: (m) => {
      const a = parsePoint(m[1]!);
      const b = parsePoint(m[2]!);
      return a && b ? { from: a.from, to: b.to } : null;
    },
  },
  {
    re: new RegExp(`\\bsince\\s+(${POINT_RE})\\b`, 'gi'),
    resolve: (m) => {
      const p = parsePoint(m[1]!);
      return p ? { from: p.from, to: null } : null;
    },
  },
  {
    re: new RegExp(`\\bafter\\s+(${POINT_RE})\\b`, 'gi'),
    resolve: (m) => {
      const p = parsePoint(m[1]!);
      return p ? { from: p.to, to: null } : null;
    },
  },
  {
    re: new RegExp(`\\bbefore\\s+(${POINT_RE})\\b`, 'gi'),
    resolve: (m) => {
      const p = parsePoint(m[1]!);
      return p ? { from: null, to: p.from } : null;
    },
  },
  {
    re: new RegExp(`\\b(?:on|in|during)\\s+(${POINT_RE})\\b`, 'gi'),
    resolve: (m) => parsePoint(m[1]!),
  },
  {
    // A bare month ("in March") is the latest such month that has begun by asOf. Only a
    // capitalized month counts, so "in may" as a verb and "march" as a word are left alone.
    re: new RegExp(
      `\\b(?:[Ii]n|[Dd]uring)\\s+(${MONTHS.map((m) => m[0]!.toUpperCase() + m.slice(1)).join('|')})\\b(?!,?\\s+\\d)`,
      'g',
    ),
    resolve: (m, asOf) => {
      const month = monthIndex(m[1]!);
      const d = new Date(asOf);
      const year = month > d.getUTCMonth() ? d.getUTCFullYear() - 1 : d.getUTCFullYear();
      return { from: monthStart(year, month), to: monthStart(year, month + 1) };
    },
  },
  {
    re: new RegExp(
      `\\b(?:(?:in|over|during)\\s+)?(?:the\\s+)?(?:last|past)\\s+${COUNT_RE}\\s+(days?|weeks?|months?|years?)\\b`,
      'gi',
    ),
    resolve: (m, asOf) => {
      const n = parseCount(m[1]!);
      return n === null ? null : unitSpan(m[2]!, n, dayStart(asOf));
    },
  },
  {
    re: new RegExp(`\\b${COUNT_RE}\\s+(days?|weeks?|months?|years?)\\s+ago\\b`, 'gi'),
    resolve: (m, asOf) => {
      const n = parseCount(m[1]!);
      return n === null ? null : agoSpan(m[2]!, n, dayStart(asOf));
    },
  },
  { re: /\btoday\b/gi, resolve: (_m, asOf) => ({ from: dayStart(asOf), to: dayStart(asOf) + DAY }) },
  { re: /\byesterday\b/gi, resolve: (_m, asOf) => ({ from: dayStart(asOf) - DAY, to: dayStart(asOf) }) },
  {
    re: /\b(this|last)\s+(week|weekend|month|year)\b/gi,
    resolve: (m, asOf) => {
      const last = m[1]!.toLowerCase() === 'last';
      const d = new Date(asOf);
      const y = d.getUTCFullYear();
      const mo = d.getUTCMonth();
      switch (m[2]!.toLowerCase()) {
        case 'week': {
          const w = weekStart(asOf) - (last ? 7 * DAY : 0);
          return { from: w, to: w + 7 * DAY };
        }
        case 'weekend': {
          // Saturday and Sunday of this week, or of the week before.
          const sat = weekStart(asOf) + 5 * DAY - (last ? 7 * DAY : 0);
          return { from: sat, to: sat + 2 * DAY };
        }
        case 'month':
          return { from: monthStart(y, mo - (last ? 1 : 0)), to: monthStart(y, mo + (last ? 0 : 1)) };
        default:
          return { from: Date.UTC(y - (last ? 1 : 0), 0, 1), to: Date.UTC(y + (last ? 0 : 1), 0, 1) };
      }
    },
  },
];

/**
 * Finds the first time phrase of a query and returns its range (relative to `asOf`) and the
 * query without it. Only one phrase is taken; a second one stays in the query as words.
 *
 * @example
 * rewriteTemporal('what did we decide last week', new Date('2026-03-11T12:00:00Z'))
 * // { timeRange: { from: 2026-03-02T00:00Z, to: 2026-03-09T00:00Z, phrase: 'last week' }, queryUsed: 'what did we decide' }
 */
export function rewriteTemporal(query: string, asOf: Date): TemporalRewrite {
  const at = asOf.getTime();
  let best: { index: number; text: string; span: Span } | null = null;
  for (const rule of RULES) {
    rule.re.lastIndex = 0;
    for (let m = rule.re.exec(query); m !== null; m = rule.re.exec(query)) {
      const span = rule.resolve(m, at);
      if (span === null) continue;
      if (best === null || m.index < best.index || (m.index === best.index && m[0].length > best.text.length)) {
        best = { index: m.index, text: m[0], span };
      }
      break;
    }
  }
  if (best === null) return { timeRange: null, queryUsed: query };
  const rest = `${query.slice(0, best.index)} ${query.slice(best.index + best.text.length)}`;
  const queryUsed = rest
    .replace(/\s+/g, ' ')
    .replace(/\s+([?!.,;:])/g, '$1')
    .trim();
  return {
    timeRange: {
      from: best.span.from === null ? null : new Date(best.span.from),
      to: best.span.to === null ? null : new Date(best.span.to),
      phrase: best.text.trim(),
    },
    queryUsed,
  };
}
