import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Db } from '../db/client.ts';
import type { EntryRow } from '../db/schema.ts';
import {
  importantEntries,
  recentEntries,
  staleEntries,
  type TagCount,
  tagCounts,
  type WorkspaceStats,
  workspaceStats,
} from './queries.ts';

export interface Brief {
  text: string;
  stats: WorkspaceStats;
  recent: EntryRow[];
  important: EntryRow[];
  stale: EntryRow[];
  topTags: TagCount[];
}

export const BRIEF_TEXT_MAX = 2_000;
const LIST_SIZE = 5;

/** A one-screen digest of a workspace for an agent's prompt: counts, top tags, what is new, key and stale. */
export async function buildBrief(db: Db, now: number): Promise<Brief> {
  // As recall does: the briefs of one document each take a turn of the event loop.
  await nextTurn();
  const [stats, recent, important, stale, topTags] = await Promise.all([
    workspaceStats(db),
    recentEntries(db, LIST_SIZE),
    importantEntries(db, LIST_SIZE),
    staleEntries(db, LIST_SIZE, now),
    tagCounts(db, 10),
  ]);
  return { text: briefText(stats, recent, important, stale, topTags), stats, recent, important, stale, topTags };
}

function oneLine(content: string, max: number): string {
  const flat = content.replace(/\s+/gu, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

function briefText(
  stats: WorkspaceStats,
  recent: EntryRow[],
  important: EntryRow[],
  stale: EntryRow[],
  topTags: TagCount[],
): string {
  const lines: string[] = [];
  lines.push(`Memory: ${stats.entries} entries, ${stats.edges} links, ${stats.tags} tags.`);
  if (stats.byKind.length > 0)
    lines.push(`Kinds: ${stats.byKind.map((k) => `${k.key.toLowerCase()} ${k.count}`).join(', ')}.`);
  if (topTags.length > 0) lines.push(`Top tags: ${topTags.map((t) => `${t.tag} (${t.count})`).join(', ')}.`);
  const section = (title: string, list: EntryRow[]) => {
    if (list.length === 0) return;
    lines.push(`${title}:`);
    for (const e of list) lines.push(`- [${e.kind.toLowerCase()}] ${oneLine(e.content, 120)} (${e.id})`);
  };
  section('Most important', important);
  section('Recent', recent);
  section('Stale, to review', stale);
  let text = '';
  for (const line of lines) {
    if (text.length + line.length + 1 > BRIEF_TEXT_MAX) break;
    text += (text ? '\n' : '') + line;
  }
  return text;
}
