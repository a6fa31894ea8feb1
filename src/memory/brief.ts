import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Db } from '../db/client.ts';
import type { EntryRow } from '../db/schema.ts';
import {
  ENTRY_HEAD_CHARS,
  type EntryHead,
  entryHeads,
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
  topTags: TagCount[];
  /** Its lists' entries, whole: read only when a document asks for them, once. */
  lists(): Promise<BriefLists>;
}

export interface BriefLists {
  recent: EntryRow[];
  important: EntryRow[];
  stale: EntryRow[];
}

export const BRIEF_TEXT_MAX = 2_000;
const LIST_SIZE = 5;

/** A one-screen digest of a workspace for an agent's prompt: counts, top tags, what is new, key and stale. */
export async function buildBrief(db: Db, now: number): Promise<Brief> {
  // As recall does: the briefs of one document each take a turn of the event loop.
  await nextTurn();
  const [stats, recent, important, stale, topTags] = await Promise.all([
    workspaceStats(db),
    entryHeads(db, 'recent', LIST_SIZE, now),
    entryHeads(db, 'important', LIST_SIZE, now),
    entryHeads(db, 'stale', LIST_SIZE, now),
    tagCounts(db, 10),
  ]);
  let lists: Promise<BriefLists> | null = null;
  const readLists = async (): Promise<BriefLists> => {
    const [recent, important, stale] = await Promise.all([
      recentEntries(db, LIST_SIZE),
      importantEntries(db, LIST_SIZE),
      staleEntries(db, LIST_SIZE, now),
    ]);
    return { recent, important, stale };
  };
  return {
    text: briefText(stats, recent, important, stale, topTags),
    stats,
    topTags,
    lists: () => {
      lists ??= readLists();
      return lists;
    },
  };
}

/**
 * An entry's text on one line of at most `max` characters, from its head (ENTRY_HEAD_CHARS,
 * several lines' worth, since runs of whitespace collapse). Reading and collapsing each
 * whole text instead, 100,000 characters for each of 15 entries and 30 briefs a document,
 * held the event loop 650 ms.
 */
function oneLine(e: EntryHead, max: number): string {
  const flat = e.head.replace(/\s+/gu, ' ').trim();
  return flat.length <= max && e.head.length < ENTRY_HEAD_CHARS ? flat : `${flat.slice(0, max - 1)}…`;
}

function briefText(
  stats: WorkspaceStats,
  recent: EntryHead[],
  important: EntryHead[],
  stale: EntryHead[],
  topTags: TagCount[],
): string {
  const lines: string[] = [];
  lines.push(`Memory: ${stats.entries} entries, ${stats.edges} links, ${stats.tags} tags.`);
  if (stats.byKind.length > 0)
    lines.push(`Kinds: ${stats.byKind.map((k) => `${k.key.toLowerCase()} ${k.count}`).join(', ')}.`);
  if (topTags.length > 0) lines.push(`Top tags: ${topTags.map((t) => `${t.tag} (${t.count})`).join(', ')}.`);
  const section = (title: string, list: EntryHead[]) => {
    if (list.length === 0) return;
    lines.push(`${title}:`);
    for (const e of list) lines.push(`- [${e.kind.toLowerCase()}] ${oneLine(e, 120)} (${e.id})`);
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
