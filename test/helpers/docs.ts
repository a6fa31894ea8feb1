import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root directory, with a trailing slash. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The documentation a newcomer reads: README.md, then every page of docs/ by name. */
export const DOC_PAGES = [
  'README.md',
  ...readdirSync(join(REPO_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

export function readPage(page: string): string {
  return readFileSync(join(REPO_ROOT, page), 'utf8');
}

/** The languages whose blocks test/integration/readme.test.ts runs. */
export const RUNNABLE = ['graphql', 'sh', 'ts', 'python'] as const;
export type Lang = (typeof RUNNABLE)[number];

export interface Block {
  lang: Lang;
  /** 1-based line of the opening fence. */
  line: number;
  body: string;
}

export interface SkippedBlock {
  line: number;
  lang: string;
  /** The reason the skip marker gives; empty when there is no marker. */
  reason: string;
}

/** Lines of a Markdown text inside fenced code blocks, as a set of 0-based line numbers. */
export function fencedLines(markdown: string): Set<number> {
  const inside = new Set<number>();
  const lines = markdown.split('\n');
  let open = -1;
  for (let i = 0; i < lines.length; i++) {
    if (open < 0 && /^\s*```[\w-]*\s*$/.test(lines[i]!)) open = i;
    else if (open >= 0 && /^\s*```\s*$/.test(lines[i]!)) {
      for (let j = open; j <= i; j++) inside.add(j);
      open = -1;
    }
  }
  return inside;
}

/**
 * The blocks of a Markdown text in order: those the README runner runs, and those it skips
 * (after `<!-- readme-test: skip (why) -->`, or in a language it cannot run) with the reason.
 */
export function docBlocks(markdown: string, name: string): { blocks: Block[]; skipped: SkippedBlock[] } {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  const skipped: SkippedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s*```([\w-]*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    let end = i + 1;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end]!)) end++;
    if (end >= lines.length) throw new Error(`${name} line ${i + 1}: unclosed code block`);
    const body = lines.slice(i + 1, end).join('\n');
    const lang = open[1] ?? '';
    const marker = /^\s*<!-- readme-test: skip(?: \((.*)\))? -->\s*$/.exec(lines[i - 1] ?? '');
    if (marker) skipped.push({ line: i + 1, lang, reason: marker[1]?.trim() ?? '' });
    else if ((RUNNABLE as readonly string[]).includes(lang)) blocks.push({ lang: lang as Lang, line: i + 1, body });
    else skipped.push({ line: i + 1, lang, reason: '' });
    i = end;
  }
  return { blocks, skipped };
}
