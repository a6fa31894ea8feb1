import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import type { Volatility } from '../contract/enums.ts';
import { checkRange, LIMITS } from '../contract/limits.ts';
import { VOLATILITY_MAX_AGE_MS } from '../contract/policy.ts';
import { auditLog } from '../db/schema.ts';
import type { WriteScope } from '../db/writer.ts';

/** What one staleness pass did. */
export interface StalenessReport {
  /** Distinct entries the pass looked at: re-classification candidates plus the over-age ones it marked. */
  scanned: number;
  /** ACTIVE entries past their volatility limit that became STALE. */
  markedStale: number;
  /** Entries whose volatility_source went from `default` to `heuristic` (volatility changed or not). */
  reclassified: number;
  /** The pass's clock (ms since the epoch). */
  at: number;
}

export interface StalenessOptions {
  /** At most this many entries re-classified, and at most this many marked STALE, in one pass (1..10,000). */
  limit: number;
  /** Who ran it (a token id), for the audit log; null in open mode. */
  actor: string | null;
}

/** Only the head of a long entry is read: the signals the heuristic looks for sit near the start. */
const HEURISTIC_PREFIX_CHARS = 2_000;

/** Largest IN (...) list per statement, well under SQLite's bound-parameter limit. */
const ID_CHUNK = 500;

/** Entries classified between two turns of the event loop, which every workspace shares. */
const CLASSIFY_CHUNK = 200;

// Every signal runs in time linear in the text: no unbounded repetition inside another, and
// none that can restart at each character of a long run (a test holds them to it).

// Signals that a statement will not hold for long: today's weather, a meeting, an outage.
export const EPHEMERAL_SIGNALS: readonly RegExp[] = [
  /\b(today|tonight|tomorrow|yesterday)\b/i,
  /\bthis (morning|afternoon|evening|week|weekend)\b/i,
  /\b(right now|at the moment|for now|for the time being|later today|next (hour|few hours|few days))\b/i,
  /\bin \d+ (minutes?|hours?|days?)\b/i,
  /\b(is|are|was|went) (down|offline|unavailable|broken)\b/i,
  /\b(outage|incident|on[- ]call|standup|stand-up|eta|deadline|temporar(y|ily)|this sprint)\b/i,
  /\b(at|by|until) \d{1,2}(:\d{2})?\s?(am|pm)\b/i,
  /\b(at|by|until) \d{1,2}:\d{2}\b/,
];

// Signals that a statement is true for now but will change: versions, prices, status, "currently".
export const EVOLVING_SIGNALS: readonly RegExp[] = [
  /\b(currently|nowadays|presently|lately|recently|so far|as of|at present|latest|newest|upcoming)\b/i,
  /\bthis (month|quarter|year|release|cycle)\b/i,
  /\bv\d+\.\d+\b|\b\d+\.\d+\.\d+\b|\b(version|release|lts)\s+v?\d+/i,
  // A product name and a version number: "Node 20.11", "Python 3.13". The name is bounded:
  // unbounded, every capital of a run like "A.A.A…" would start a scan to the run's end.
  /\b[A-Z][\w.+-]{0,40}\s\d+\.\d+\b/,
  /[$€£¥]\s?\d|\b\d+([.,]\d+)?\s?(usd|eur|gbp|dollars?|euros?|per month|\/mo|\/month)\b/i,
  /\b(price[sd]?|pricing|costs?|salary|budget|rate limit|quota)\b/i,
  /\b(status|pending|in progress|wip|todo|to-do|blocked|planned|roadmap|working on|migrating|rolling out|beta|deprecated)\b/i,
];

// Signals of something that stays true: definitions, identities, birthdays, laws.
export const DURABLE_SIGNALS: readonly RegExp[] = [
  /\b(always|never|by definition|defined as|definition of|stands for|is short for|means|refers to)\b/i,
  /\b(is|are) (a|an|the) (kind|type|form|unit|measure|branch|member|part) of\b/i,
  /^\s*[\w'’ -]{1,60}\b(is|are) (a|an)\b/i,
  /\b(born|birthday|birth date|date of birth|died|founded in|invented|discovered)\b/i,
  /\b(my|his|her|their|its|our) (full |legal |real )?name is\b|\bis (named|called)\b/i,
  /\b(law|theorem|axiom|principle|constant|formula|equation)\b/i,
  /\bcapital of\b|\bconsists of\b|\bis made of\b/i,
];

/**
 * Guesses an entry's volatility from its text alone (no model). Signals of a short
 * life win over signals of change, which win over signals of permanence; text with
 * no signal (a bare date included: "met Ana on 2026-03-04" could be either) keeps
 * EVOLVING, the capture default.
 *
 * @example classifyVolatility('The deploy is down right now') // 'EPHEMERAL'
 * @example classifyVolatility('Node 20.11 is the current LTS') // 'EVOLVING'
 * @example classifyVolatility("Ada Lovelace's birthday is 10 December 1815") // 'DURABLE'
 */
export function classifyVolatility(content: string): Volatility {
  const text = content.slice(0, HEURISTIC_PREFIX_CHARS);
  if (EPHEMERAL_SIGNALS.some((re) => re.test(text))) return 'EPHEMERAL';
  if (EVOLVING_SIGNALS.some((re) => re.test(text))) return 'EVOLVING';
  if (DURABLE_SIGNALS.some((re) => re.test(text))) return 'DURABLE';
  return 'EVOLVING';
}

/** Validates a pass's limit before any write is queued. */
export function checkStalenessLimit(limit: number): number {
  return checkRange(limit, LIMITS.stalenessLimit, 'limit');
}

/**
 * The maintenance pass of CONTRACT §6, one write: re-classifies up to `limit`
 * default-volatility entries (oldest first) by `classifyVolatility`, then marks up to
 * `limit` over-age ACTIVE entries STALE (the longest-unchanged first), writes an audit
 * row and emits one STALENESS_PASS event. Capping both steps keeps one pass a bounded
 * write on the workspace's single writer; cron runs catch up on a large backlog, and
 * reads mark what they meet in the meantime (lazy staleness). Neither step touches
 * updated_at, so an entry's age keeps counting from its last real change.
 */
export async function runStalenessPass(scope: WriteScope, opts: StalenessOptions): Promise<StalenessReport> {
  const limit = checkStalenessLimit(opts.limit);
  const { db, now } = scope;
  const seen = new Set<string>();

  const candidates = await db.all<{ n: number; id: string; head: string; volatility: string }>(sql`
    SELECT n, id, substr(content, 1, ${HEURISTIC_PREFIX_CHARS}) AS head, volatility
    FROM entries WHERE volatility_source = 'default' ORDER BY n LIMIT ${limit}`);
  const byVolatility = new Map<Volatility, number[]>();
  for (const [i, c] of candidates.entries()) {
    if (i > 0 && i % CLASSIFY_CHUNK === 0) await nextTurn();
    seen.add(c.id);
    const volatility = classifyVolatility(c.head);
    const ns = byVolatility.get(volatility);
    if (ns) ns.push(c.n);
    else byVolatility.set(volatility, [c.n]);
  }
  for (const [volatility, ns] of byVolatility) {
    for (let i = 0; i < ns.length; i += ID_CHUNK) {
      const chunk = ns.slice(i, i + ID_CHUNK);
      await db.run(sql`
        UPDATE entries SET volatility = ${volatility}, volatility_source = 'heuristic'
        WHERE n IN (${sql.join(
          chunk.map((n) => sql`${n}`),
          sql`, `,
        )})`);
    }
  }

  const evolvingBefore = now - (VOLATILITY_MAX_AGE_MS.EVOLVING ?? 0);
  const ephemeralBefore = now - (VOLATILITY_MAX_AGE_MS.EPHEMERAL ?? 0);
  // The same "older than its volatility allows" rule as lazy staleness (isOverAge); DURABLE never ages.
  const marked = await db.all<{ id: string }>(sql`
    UPDATE entries SET status = 'STALE'
    WHERE n IN (
      SELECT n FROM entries
      WHERE status = 'ACTIVE'
        AND ((volatility = 'EVOLVING' AND updated_at < ${evolvingBefore})
          OR (volatility = 'EPHEMERAL' AND updated_at < ${ephemeralBefore}))
      ORDER BY updated_at, n
      LIMIT ${limit})
    RETURNING id`);
  for (const m of marked) seen.add(m.id);

  const report: StalenessReport = {
    scanned: seen.size,
    markedStale: marked.length,
    reclassified: candidates.length,
    at: now,
  };
  const counts = { scanned: report.scanned, markedStale: report.markedStale, reclassified: report.reclassified };
  const reclassifiedAs = Object.fromEntries([...byVolatility].map(([v, ns]) => [v, ns.length]));
  await db.insert(auditLog).values({
    at: now,
    actor: opts.actor,
    action: 'staleness_pass',
    details: JSON.stringify({ limit, ...counts, reclassifiedAs }),
  });
  await scope.emit({ type: 'STALENESS_PASS', data: counts });
  return report;
}
