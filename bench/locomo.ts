/**
 * The LoCoMo data set as the quality benchmark uses it: conversations flattened to turns,
 * questions with their evidence turns, evidence recall@K, and the plain Okapi BM25 baseline.
 * Nothing here talks to the server; bench/quality.ts does.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The shared copy beside the repository (never copied into it); LOCOMO_PATH overrides. */
export const LOCOMO_PATH = process.env.LOCOMO_PATH ?? resolve(REPO_ROOT, '../shared/data/locomo10.json');

export const CATEGORIES = [1, 2, 3, 4] as const;
export const CATEGORY_NAMES: Record<number, string> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
};
export const KS = [1, 5, 10, 20] as const;

export interface Turn {
  diaId: string;
  speaker: string;
  session: number;
  /** `"<speaker>: <text>"`, plus the image caption when the turn shares one. */
  content: string;
  observedAt: Date;
}

export interface Question {
  question: string;
  category: number;
  /** Evidence turn ids that exist in the conversation (malformed ones dropped). */
  evidence: string[];
}

export interface Conversation {
  sampleId: string;
  turns: Turn[];
  questions: Question[];
  /** One day after the last session: the `asOf` of every question. */
  asOf: Date;
}

interface RawTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}

const MONTHS = 'january february march april may june july august september october november december'.split(' ');

/** "1:56 pm on 8 May, 2023" → that instant, read as UTC. */
export function parseSessionDate(text: string): Date {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i.exec(text);
  if (!m) throw new Error(`unrecognized session date: ${text}`);
  const month = MONTHS.indexOf(m[5]!.toLowerCase());
  let hour = Number(m[1]) % 12;
  if (m[3]!.toLowerCase() === 'pm') hour += 12;
  return new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2])));
}

export function turnContent(turn: RawTurn): string {
  const caption = turn.blip_caption ? ` (image: ${turn.blip_caption})` : '';
  return `${turn.speaker}: ${turn.text}${caption}`;
}

/** Loads and flattens the data set. */
export function loadLocomo(path: string = LOCOMO_PATH): Conversation[] {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as {
    sample_id: string;
    conversation: Record<string, unknown>;
    qa: { question: string; category: number; evidence?: string[] }[];
  }[];
  return raw.map((sample) => {
    const conv = sample.conversation;
    const sessions = Object.keys(conv)
      .map((k) => /^session_(\d+)$/.exec(k))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
    const turns: Turn[] = [];
    let last = 0;
    for (const s of sessions) {
      const date = parseSessionDate(String(conv[`session_${s}_date_time`]));
      last = Math.max(last, date.getTime());
      (conv[`session_${s}`] as RawTurn[]).forEach((t, i) => {
        // Turns of a session share its date; a second apiece keeps their order.
        turns.push({
          diaId: t.dia_id,
          speaker: t.speaker,
          session: s,
          content: turnContent(t),
          observedAt: new Date(date.getTime() + i * 1000),
        });
      });
    }
    const known = new Set(turns.map((t) => t.diaId));
    const questions = sample.qa
      .filter((q) => q.category >= 1 && q.category <= 4)
      .map((q) => ({
        question: String(q.question),
        category: q.category,
        evidence: [
          ...new Set(
            (q.evidence ?? [])
              .flatMap((e) => String(e).split(';'))
              .map((e) => e.trim())
              .filter((e) => known.has(e)),
          ),
        ],
      }))
      .filter((q) => q.evidence.length > 0);
    return { sampleId: sample.sample_id, turns, questions, asOf: new Date(last + 86_400_000) };
  });
}

/** Fraction of the evidence turns among the first k retrieved turns. */
export function evidenceRecall(retrievedDiaIds: readonly string[], evidence: readonly string[], k: number): number {
  const top = new Set(retrievedDiaIds.slice(0, k));
  return evidence.filter((e) => top.has(e)).length / evidence.length;
}

const BASELINE_STOP = new Set(
  'a an the is are was were be been to of and or in on at for with by from as that this it its i you he she we they me my your his her our their what when where who whom which why how did do does has have had not no yes'.split(
    ' ',
  ),
);

const bm25Tokens = (text: string) =>
  (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((t) => !BASELINE_STOP.has(t));

/** Plain Okapi BM25 (k1 1.2, b 0.75, idf ln(1 + (N − n + 0.5)/(n + 0.5))) over one conversation's turns. */
export class Bm25Index {
  private readonly docs: Map<string, number>[];
  private readonly lengths: number[];
  private readonly avgLength: number;
  private readonly df = new Map<string, number>();

  constructor(
    private readonly ids: readonly string[],
    texts: readonly string[],
  ) {
    this.docs = texts.map((text) => {
      const tf = new Map<string, number>();
      for (const t of bm25Tokens(text)) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const t of tf.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1);
      return tf;
    });
    this.lengths = texts.map((t) => bm25Tokens(t).length);
    this.avgLength = this.lengths.reduce((a, b) => a + b, 0) / Math.max(1, this.lengths.length);
  }

  /** Ids of the best `k` documents; ties keep document order. */
  search(query: string, k: number): string[] {
    const terms = [...new Set(bm25Tokens(query))];
    const n = this.docs.length;
    const k1 = 1.2;
    const b = 0.75;
    const scores = this.docs.map((tf, i) => {
      let s = 0;
      for (const term of terms) {
        const f = tf.get(term);
        if (!f) continue;
        const df = this.df.get(term) ?? 0;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        s += (idf * f * (k1 + 1)) / (f + k1 * (1 - b + (b * this.lengths[i]!) / this.avgLength));
      }
      return { i, s };
    });
    return scores
      .filter((x) => x.s > 0)
      .sort((x, y) => y.s - x.s || x.i - y.i)
      .slice(0, k)
      .map((x) => this.ids[x.i]!);
  }
}

/** Sums of recall@K per category, turned into means by `table`. */
export class RecallTally {
  private readonly sums = new Map<string, { n: number; at: Record<number, number> }>();

  add(category: number, retrieved: readonly string[], evidence: readonly string[]): void {
    for (const key of [String(category), 'overall']) {
      const row = this.sums.get(key) ?? { n: 0, at: Object.fromEntries(KS.map((k) => [k, 0])) };
      row.n++;
      for (const k of KS) row.at[k]! += evidenceRecall(retrieved, evidence, k);
      this.sums.set(key, row);
    }
  }

  /** { '1': { n, at: { 1: .29, 5: ... } }, ..., overall: {...} } */
  means(): Record<string, { n: number; at: Record<number, number> }> {
    const out: Record<string, { n: number; at: Record<number, number> }> = {};
    for (const key of [...CATEGORIES.map(String), 'overall']) {
      const row = this.sums.get(key);
      if (!row) continue;
      out[key] = { n: row.n, at: Object.fromEntries(KS.map((k) => [k, row.at[k]! / row.n])) };
    }
    return out;
  }
}

/** A plain-text table of both systems, one row per category and K. */
export function formatTable(
  ours: ReturnType<RecallTally['means']>,
  baseline: ReturnType<RecallTally['means']>,
  labels: [string, string] = ['ours', 'bm25'],
): string {
  const lines = [
    `${'category'.padEnd(20)}${'n'.padStart(6)}  ${KS.map((k) => `${labels[0]}@${k}`.padStart(9)).join('')}  ${KS.map((k) => `${labels[1]}@${k}`.padStart(9)).join('')}`,
  ];
  for (const key of [...CATEGORIES.map(String), 'overall']) {
    const o = ours[key];
    const b = baseline[key];
    if (!o || !b) continue;
    const name = key === 'overall' ? 'overall' : `${key} ${CATEGORY_NAMES[Number(key)]}`;
    lines.push(
      `${name.padEnd(20)}${String(o.n).padStart(6)}  ${KS.map((k) => o.at[k]!.toFixed(3).padStart(9)).join('')}  ${KS.map((k) => b.at[k]!.toFixed(3).padStart(9)).join('')}`,
    );
  }
  return lines.join('\n');
}
