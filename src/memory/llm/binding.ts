import { sql } from 'drizzle-orm';
import {
  CLASSIFICATION_FIELDS,
  type ClassificationField,
  type ClassificationSource,
  type ConflictRelation,
} from '../../contract/enums.ts';
import { DomainError } from '../../contract/errors.ts';
import type { MemoryEventRecord } from '../../contract/events.ts';
import type { Db } from '../../db/client.ts';
import { entryFromRow } from '../../db/mappers.ts';
import type { EntryRow } from '../../db/schema.ts';
import type { Writer, WriteScope } from '../../db/writer.ts';
import { linkWrite } from '../link.ts';
import { type ChatClient, ChatError } from './chat.ts';
import {
  CLASSIFICATION_JSON,
  ClassificationAnswer,
  CONFLICT_JSON,
  ConflictAnswer,
  classificationPrompt,
  conflictPrompt,
} from './tasks.ts';

/** What the binding needs of a workspace: reads, and its one writer. */
export interface LlmWorkspaceAccess {
  id: string;
  db: Db;
  writer: Pick<Writer, 'run'>;
}

export type LlmLog = (message: string, fields: Record<string, unknown>) => void;

export interface LlmOptions {
  client: ChatClient;
  /** Requests in flight at once, over every workspace. */
  concurrency: number;
  /** An "updates" answer at or above `confidence` becomes a SUPERSEDES link (INFERRED) when `on`. */
  supersede: { on: boolean; confidence: number };
  /** Older entries a new one is compared with. */
  candidates: number;
  /**
   * Whether a workspace has a database yet: one that has none has no queue to resume, and
   * reading it while its first write creates it would race that write.
   */
  exists?: (workspace: string) => boolean;
  /** The nearest older ACTIVE entries of `entry`, most alike first (keyword or vector arm; see server/llm.ts). */
  findCandidates: (access: LlmWorkspaceAccess, entry: EntryRow, k: number) => Promise<EntryRow[]>;
  log: LlmLog;
  notice?: LlmLog;
}

/** The binding's state for `/health` and `stats`: degraded while its endpoint does not answer. */
export interface LlmStatus {
  state: 'ready' | 'degraded';
  model: string;
  reason: string | null;
  since: Date;
  /** Failed requests in a row. */
  failures: number;
  retryAt: Date | null;
}

/** Retry delays after a failed request: doubling from 1 s up to five minutes. */
const BACKOFF_MS = { first: 1_000, max: 300_000 };
/** Answers that did not fit the schema before an entry is left as it is. */
const MAX_BAD_ANSWERS = 3;
/** How long after a commit its queue pass starts. */
const SOON_MS = 50;
/** Queue rows a pass reads at a time. */
const BATCH = 16;

/**
 * The column an asked field sets. Volatility also sets volatility_source to `model`, so the
 * staleness pass (which re-classifies only `default` ones) leaves the model's answer alone.
 */
const FIELD_COLUMN: Record<ClassificationField, string> = {
  KIND: 'kind',
  VOLATILITY: 'volatility',
  IMPORTANCE: 'importance',
};

interface QueueRow {
  entryId: string;
  ask: ClassificationField[];
  conflicts: boolean;
  attempts: number;
}

/** What one entry's look by the model found. */
interface Findings {
  classification: ClassificationAnswer | null;
  conflicts: { other: EntryRow; relation: ConflictRelation; reason: string; confidence: number }[];
}

/**
 * The optional LLM binding: after a capture commits, its asked classification fields are
 * proposed and it is compared with its nearest older entries. Nothing of it is on a
 * request's path: the capture wrote a row into `llm_queue` in its own transaction and was
 * acknowledged; this drains the queue in the background, workspace by workspace, and writes
 * what the model found through the workspace's writer, with events. A down, slow or wrong
 * endpoint only delays the queue (it backs off and `/health` says degraded).
 */
export class LlmBinding {
  readonly #opts: LlmOptions;
  readonly #workspaces = new Map<string, LlmWorkspace>();
  #status: LlmStatus;
  #inFlight = 0;
  readonly #slots: (() => void)[] = [];
  #closed = false;

  constructor(opts: LlmOptions) {
    this.#opts = opts;
    this.#status = {
      state: 'ready',
      model: opts.client.model,
      reason: null,
      since: new Date(),
      failures: 0,
      retryAt: null,
    };
  }

  get model(): string {
    return this.#opts.client.model;
  }

  status(): LlmStatus {
    return this.#status;
  }

  /** The workspace's queue (its access refreshed); a workspace seen for the first time resumes what it left. */
  workspace(access: LlmWorkspaceAccess): LlmWorkspace {
    let ws = this.#workspaces.get(access.id);
    if (!ws) {
      ws = new LlmWorkspace(access, this);
      this.#workspaces.set(access.id, ws);
      if (this.#opts.exists?.(access.id) ?? true) ws.schedule();
    }
    ws.access = access;
    return ws;
  }

  /** Committed writes: a stored capture may have queued work. */
  onCommitted(events: readonly MemoryEventRecord[]): void {
    for (const e of events) {
      if (e.type !== 'CAPTURED' || (e.outcome !== 'STORED' && e.outcome !== 'REPLACED')) continue;
      this.#workspaces.get(e.workspace)?.soon();
    }
  }

  /** Waits until no workspace has anything it can do now (tests). */
  async settled(): Promise<void> {
    await Promise.all([...this.#workspaces.values()].map((ws) => ws.idle()));
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const release of this.#slots.splice(0)) release();
    await Promise.all([...this.#workspaces.values()].map((ws) => ws.close()));
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Asks the model, within the binding's concurrency, and keeps its state up to date. */
  async ask<T>(fn: (client: ChatClient) => Promise<T>): Promise<T> {
    await this.#acquire();
    try {
      const answer = await fn(this.#opts.client);
      this.#succeeded();
      return answer;
    } catch (error) {
      // An answer that did not fit is the model's fault for that entry, not the endpoint's.
      if (error instanceof ChatError && error.message.startsWith("the model's answer")) this.#succeeded();
      else this.#failed(error);
      throw error;
    } finally {
      this.#release();
    }
  }

  /** How long to wait before asking again, 0 while the endpoint answers. */
  get backoffMs(): number {
    const at = this.#status.retryAt;
    return at ? Math.max(0, at.getTime() - Date.now()) : 0;
  }

  get options(): LlmOptions {
    return this.#opts;
  }

  #acquire(): Promise<void> {
    if (this.#inFlight < this.#opts.concurrency) {
      this.#inFlight++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#slots.push(resolve));
  }

  #release(): void {
    const next = this.#slots.shift();
    if (next) next();
    else this.#inFlight--;
  }

  #succeeded(): void {
    if (this.#status.state === 'ready') return;
    (this.#opts.notice ?? this.#opts.log)('LLM endpoint answers again; working through its queue', {
      model: this.model,
      downMs: Date.now() - this.#status.since.getTime(),
    });
    this.#status = { state: 'ready', model: this.model, reason: null, since: new Date(), failures: 0, retryAt: null };
  }

  #failed(error: unknown): void {
    const reason = error instanceof Error ? error.message : String(error);
    const previous = this.#status;
    const failures = previous.failures + 1;
    const delay = Math.min(BACKOFF_MS.max, BACKOFF_MS.first * 2 ** (failures - 1));
    if (previous.reason !== reason) {
      this.#opts.log(`LLM endpoint failed: ${reason}; captures are stored and wait for it`, {
        model: this.model,
        retryInMs: delay,
      });
    }
    this.#status = {
      state: 'degraded',
      model: this.model,
      reason,
      since: previous.state === 'degraded' ? previous.since : new Date(),
      failures,
      retryAt: new Date(Date.now() + delay),
    };
  }
}

/** One workspace's queue: drained one entry at a time, so workspaces take turns at the endpoint. */
export class LlmWorkspace {
  access: LlmWorkspaceAccess;
  readonly #binding: LlmBinding;
  #running: Promise<void> | null = null;
  #again = false;
  #timer: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(access: LlmWorkspaceAccess, binding: LlmBinding) {
    this.access = access;
    this.#binding = binding;
  }

  /** Entries waiting for the model. */
  async pending(): Promise<number> {
    const rows = await this.access.db.all<{ n: number }>(sql`SELECT count(*) AS n FROM llm_queue`);
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * A pass a moment after a commit, not in the commit's own turn: a workspace's first commit
   * has just created its file, and a read opened in that same instant could find it not yet
   * ready. Captures arriving meanwhile share the pass.
   */
  soon(): void {
    this.#later(SOON_MS);
  }

  schedule(): void {
    if (this.#closed || this.#timer) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#drain()
      .catch((error) => {
        this.#binding.options.log('LLM queue pass failed', {
          workspace: this.access.id,
          err: error instanceof Error ? error.message : String(error),
        });
        this.#later(this.#binding.backoffMs || BACKOFF_MS.first);
      })
      .finally(() => {
        this.#running = null;
        if (this.#again && !this.#closed && !this.#timer) {
          this.#again = false;
          this.schedule();
        }
      });
  }

  async idle(): Promise<void> {
    while (this.#running || this.#again) await (this.#running ?? new Promise((r) => setTimeout(r, 20)));
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#running?.catch(() => {});
  }

  #later(ms: number): void {
    if (this.#closed || this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.schedule();
    }, ms);
    this.#timer.unref();
  }

  async #drain(): Promise<void> {
    // Rows that failed are skipped for the rest of this pass, so one bad entry never spins.
    const skip = new Set<string>();
    for (;;) {
      if (this.#closed || this.#binding.closed) return;
      const wait = this.#binding.backoffMs;
      if (wait > 0) return this.#later(wait);
      const rows = await this.#next(skip);
      // Entries whose answer did not fit are asked again a little later (see #badAnswer).
      if (rows.length === 0) return skip.size > 0 ? this.#later(BACKOFF_MS.first) : undefined;
      for (const row of rows) {
        if (this.#closed || this.#binding.closed) return;
        try {
          await this.#handle(row);
        } catch (error) {
          skip.add(row.entryId);
          if (error instanceof ChatError && error.message.startsWith("the model's answer")) {
            await this.#badAnswer(row, error);
            continue;
          }
          // The endpoint failed: the binding backs off; the row stays for the next pass.
          return this.#later(Math.max(this.#binding.backoffMs, BACKOFF_MS.first));
        }
      }
    }
  }

  async #next(skip: ReadonlySet<string>): Promise<QueueRow[]> {
    const rows = await this.access.db.all<Record<string, unknown>>(
      sql`SELECT entry_id, ask, conflicts, attempts FROM llm_queue ORDER BY enqueued_at, entry_id LIMIT ${BATCH + skip.size}`,
    );
    return rows
      .map((r) => ({
        entryId: String(r.entry_id),
        ask: parseAsk(String(r.ask)),
        conflicts: Number(r.conflicts) === 1,
        attempts: Number(r.attempts),
      }))
      .filter((r) => !skip.has(r.entryId))
      .slice(0, BATCH);
  }

  /** Asks the model what the row wants to know of its entry, then writes what it found. */
  async #handle(row: QueueRow): Promise<void> {
    const [first] = await this.access.db.all<Record<string, unknown>>(
      sql`SELECT * FROM entries WHERE id = ${row.entryId}`,
    );
    // Forgotten meanwhile: the queue row went with it (cascade), nothing to do.
    if (!first) return;
    const entry = entryFromRow(first);
    const findings: Findings = { classification: null, conflicts: [] };
    const opts = this.#binding.options;
    const [classification, conflicts] = await Promise.all([
      row.ask.length > 0
        ? this.#binding.ask((c) =>
            c.ask(classificationPrompt(entry.content), 'classification', ClassificationAnswer, CLASSIFICATION_JSON),
          )
        : null,
      row.conflicts ? this.#compare(entry, opts.candidates) : [],
    ]);
    findings.classification = classification;
    findings.conflicts = conflicts;
    const superseded = await this.#supersede(entry, findings);
    await this.access.writer.run((scope) => this.#record(scope, row, entry, findings, superseded));
  }

  /** The model's verdict on the entry's nearest older entries: only updates and contradictions are kept. */
  async #compare(entry: EntryRow, k: number): Promise<Findings['conflicts']> {
    const older = await this.#binding.options.findCandidates(this.access, entry, k);
    if (older.length === 0) return [];
    const answer = await this.#binding.ask((c) =>
      c.ask(
        conflictPrompt(
          entry.content,
          older.map((o) => o.content),
        ),
        'conflicts',
        ConflictAnswer,
        CONFLICT_JSON,
      ),
    );
    const out: Findings['conflicts'] = [];
    const seen = new Set<string>();
    for (const pair of answer.pairs) {
      const other = older[Number(pair.candidate) - 1];
      if (!other || seen.has(other.id)) continue;
      seen.add(other.id);
      if (pair.relation === 'updates' || pair.relation === 'contradicts') {
        const relation: ConflictRelation = pair.relation === 'updates' ? 'UPDATES' : 'CONTRADICTS';
        out.push({ other, relation, reason: oneLine(pair.reason), confidence: pair.confidence });
      }
    }
    return out;
  }

  /**
   * With SPHERE_LLM_SUPERSEDE on, the surest "updates" answer above the threshold becomes a
   * SUPERSEDES link (INFERRED, its model and reason in the metadata); the link's own rules
   * (kind gates, no cycles) may refuse it, which leaves the finding as information only.
   */
  async #supersede(entry: EntryRow, findings: Findings): Promise<string | null> {
    const { supersede } = this.#binding.options;
    if (!supersede.on) return null;
    const best = findings.conflicts
      .filter((c) => c.relation === 'UPDATES' && c.confidence >= supersede.confidence)
      .sort((a, b) => b.confidence - a.confidence)[0];
    if (!best) return null;
    try {
      await this.access.writer.run(
        linkWrite({
          src: entry.id,
          dst: best.other.id,
          type: 'SUPERSEDES',
          weight: Math.max(0.01, Math.min(1, best.confidence)),
          provenance: 'INFERRED',
          metadata: { by: 'llm', model: this.#binding.model, reason: best.reason, confidence: best.confidence },
        }),
      );
      return best.other.id;
    } catch (error) {
      if (!(error instanceof DomainError) && !(error as { extensions?: unknown })?.extensions) throw error;
      return null;
    }
  }

  /** One write: the asked fields, their sources, the conflicts with their events, the row gone. */
  async #record(
    scope: WriteScope,
    row: QueueRow,
    entry: EntryRow,
    findings: Findings,
    superseded: string | null,
  ): Promise<void> {
    const model = this.#binding.model;
    const current = (await scope.exec('SELECT * FROM entries WHERE id = ?', [entry.id])).rows[0];
    await scope.exec('DELETE FROM llm_queue WHERE entry_id = ?', [entry.id]);
    if (!current) return;
    const now = entryFromRow(current);
    const c = findings.classification;
    if (c) {
      const applied: Partial<Record<ClassificationField, unknown>> = {};
      const sources: Record<string, ClassificationSource> = baseSources(now, row.ask);
      for (const field of row.ask) {
        const value = field === 'KIND' ? c.kind : field === 'VOLATILITY' ? c.volatility : c.importance;
        applied[field] = value;
        sources[field.toLowerCase()] = 'MODEL';
      }
      const sets = row.ask.map((f) => `${FIELD_COLUMN[f]} = ?`);
      const args = row.ask.map((f) => applied[f] as string | number);
      if (row.ask.includes('VOLATILITY')) sets.push("volatility_source = 'model'");
      await scope.exec(`UPDATE entries SET ${sets.join(', ')}, updated_at = ? WHERE id = ?`, [
        ...args,
        scope.now,
        entry.id,
      ]);
      await scope.exec(
        `INSERT INTO entry_classifications (entry_id, sources, model, at) VALUES (?, ?, ?, ?)
         ON CONFLICT (entry_id) DO UPDATE SET sources = excluded.sources, model = excluded.model, at = excluded.at`,
        [entry.id, JSON.stringify(sources), model, scope.now],
      );
      await scope.emit({
        type: 'CLASSIFIED',
        entryId: entry.id,
        data: { model, fields: Object.fromEntries(row.ask.map((f) => [f.toLowerCase(), applied[f]])) },
      });
    }
    for (const conflict of findings.conflicts) {
      const exists = (await scope.exec('SELECT 1 FROM entries WHERE id = ?', [conflict.other.id])).rows.length > 0;
      if (!exists) continue;
      await scope.exec(
        `INSERT INTO entry_conflicts (newer_id, older_id, relation, reason, confidence, model, at) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (newer_id, older_id) DO UPDATE SET relation = excluded.relation, reason = excluded.reason,
           confidence = excluded.confidence, model = excluded.model, at = excluded.at`,
        [entry.id, conflict.other.id, conflict.relation, conflict.reason, conflict.confidence, model, scope.now],
      );
      const linked = superseded === conflict.other.id;
      await scope.emit({
        type: 'CONTRADICTION',
        entryId: entry.id,
        data: {
          other: conflict.other.id,
          relation: conflict.relation,
          reason: conflict.reason,
          confidence: conflict.confidence,
          model,
          superseded: linked,
        },
      });
      if (linked) {
        await scope.exec('INSERT INTO audit_log (at, actor, action, details) VALUES (?, ?, ?, ?)', [
          scope.now,
          `llm:${model}`,
          'llm.supersede',
          JSON.stringify({
            src: entry.id,
            dst: conflict.other.id,
            confidence: conflict.confidence,
            reason: conflict.reason,
          }),
        ]);
      }
    }
  }

  /** An answer that did not fit: counted, and after MAX_BAD_ANSWERS the entry is left as the caller wrote it. */
  async #badAnswer(row: QueueRow, error: Error): Promise<void> {
    const attempts = row.attempts + 1;
    const giveUp = attempts >= MAX_BAD_ANSWERS;
    this.#binding.options.log(
      giveUp ? 'LLM answers did not fit; the entry keeps its classification' : 'LLM answer did not fit; asking again',
      { workspace: this.access.id, entryId: row.entryId, attempts, err: error.message },
    );
    await this.access.writer.run(async (scope) => {
      await scope.exec(
        giveUp ? 'DELETE FROM llm_queue WHERE entry_id = ?' : 'UPDATE llm_queue SET attempts = ? WHERE entry_id = ?',
        giveUp ? [row.entryId] : [attempts, row.entryId],
      );
    });
  }
}

/** Each field's source before the model answered: asked ones are defaults, the rest the caller's. */
export function baseSources(
  entry: EntryRow,
  asked: readonly ClassificationField[],
): Record<string, ClassificationSource> {
  const volatility: ClassificationSource =
    entry.volatilitySource === 'caller'
      ? 'CALLER'
      : entry.volatilitySource === 'heuristic'
        ? 'HEURISTIC'
        : entry.volatilitySource === 'model'
          ? 'MODEL'
          : 'DEFAULT';
  return {
    kind: asked.includes('KIND') ? 'DEFAULT' : 'CALLER',
    volatility: asked.includes('VOLATILITY') ? 'DEFAULT' : volatility,
    importance: asked.includes('IMPORTANCE') ? 'DEFAULT' : 'CALLER',
  };
}

function parseAsk(text: string): ClassificationField[] {
  try {
    const list = JSON.parse(text) as unknown;
    if (!Array.isArray(list)) return [];
    return CLASSIFICATION_FIELDS.filter((f) => list.includes(f));
  } catch {
    return [];
  }
}

/** The model's reason as one line of at most 200 characters. */
function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
