import { sql } from 'drizzle-orm';
import type { Config } from '../config.ts';
import type { EntryRow } from '../db/schema.ts';
import type { Semantic } from '../memory/embeddings/semantic.ts';
import { LlmBinding, type LlmWorkspaceAccess } from '../memory/llm/binding.ts';
import { ChatClient } from '../memory/llm/chat.ts';
import { entriesByIds } from '../memory/queries.ts';
import { searchKeyword } from '../retrieval/keyword.ts';
import { buildPrefilter } from '../retrieval/prefilter.ts';
import { buildMatchExpression, extractTerms } from '../retrieval/query.ts';
import type { Logger } from './observability.ts';

/** Terms of a new entry its keyword candidates are searched by: the first ones, as recall would take a query. */
const CANDIDATE_TERMS = 32;

/**
 * The LLM binding SPHERE_LLM asks for, or null when it is off: then nothing of it runs and
 * captures queue nothing. Nothing is asked of the endpoint at start: a binding whose endpoint
 * is down starts all the same, and says so in /health once a request fails.
 */
export function startLlm(
  config: Config,
  logger: Logger,
  semantic: () => Semantic | null,
  exists: (workspace: string) => boolean,
): LlmBinding | null {
  const l = config.llm;
  if (l.kind === 'off' || !l.url || !l.model) return null;
  const client = new ChatClient({ url: l.url, model: l.model, apiKey: l.apiKey, timeoutMs: l.timeoutMs });
  logger.info({ model: l.model, concurrency: l.concurrency, supersede: l.supersede }, 'LLM binding on');
  return new LlmBinding({
    client,
    concurrency: l.concurrency,
    supersede: { on: l.supersede, confidence: l.supersedeConfidence },
    candidates: l.candidates,
    exists,
    findCandidates: (access, entry, k) => nearestOlder(access, entry, k, semantic()),
    log: (message, fields) => logger.warn(fields, message),
    notice: (message, fields) => logger.info(fields, message),
  });
}

/**
 * The entries a new one is compared with: the nearest older ACTIVE or CANONICAL entries, by
 * the vector arm when embeddings hold the entry's vector, else by keyword (bm25 over the
 * entry's own terms). Never the entry itself, nor one it already supersedes.
 */
async function nearestOlder(
  access: LlmWorkspaceAccess,
  entry: EntryRow,
  k: number,
  semantic: Semantic | null,
): Promise<EntryRow[]> {
  const ids = (await byVector(access, entry, k, semantic)) ?? (await byKeyword(access, entry, k));
  if (ids.length === 0) return [];
  const rows = new Map((await entriesByIds(access.db, ids)).map((e) => [e.id, e]));
  return ids
    .map((id) => rows.get(id))
    .filter((e): e is EntryRow => e !== undefined && e.createdAt <= entry.createdAt)
    .slice(0, k);
}

async function byVector(
  access: LlmWorkspaceAccess,
  entry: EntryRow,
  k: number,
  semantic: Semantic | null,
): Promise<string[] | null> {
  if (!semantic?.ready) return null;
  const matrix = await semantic.workspace(access).vectors();
  const vector = matrix.vectorOf(entry.id);
  if (!vector) return null;
  // A few more than wanted: the entry itself, newer and inactive ones are dropped after.
  const hits = await matrix.search(vector, 4 * k + 1);
  const ids = hits.map((h) => h.id).filter((id) => id !== entry.id);
  const rows = new Map((await entriesByIds(access.db, ids)).map((e) => [e.id, e]));
  return ids.filter((id) => {
    const e = rows.get(id);
    return e !== undefined && e.n < entry.n && (e.status === 'ACTIVE' || e.status === 'CANONICAL');
  });
}

async function byKeyword(access: LlmWorkspaceAccess, entry: EntryRow, k: number): Promise<string[]> {
  const terms = extractTerms(entry.content).terms.slice(0, CANDIDATE_TERMS);
  const match = buildMatchExpression(terms);
  if (!match) return [];
  const prefilter = sql`${buildPrefilter({ statuses: ['ACTIVE', 'CANONICAL'] })} AND e.id != ${entry.id} AND e.n < ${entry.n}`;
  const hits = await searchKeyword(access.db, match, prefilter, k);
  return hits.map((h) => h.id);
}
