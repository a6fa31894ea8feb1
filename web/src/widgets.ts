import type { EdgeType } from '../../src/contract/enums.ts';
import { href } from './app.ts';
import { badge, h, shorten } from './dom.ts';
import { EDGE_COLORS } from './model.ts';

/** A link to an entry's page, labelled with the start of its content (or its id). */
export function entryLink(id: string, content: string | undefined, max = 80): HTMLAnchorElement {
  return h(
    'a',
    { href: href('entry', id), class: 'entry-link', title: id },
    content ? shorten(content, max) : shortId(id),
  );
}

/** The end of an id, enough to tell entries apart at a glance. */
export function shortId(id: string): string {
  return id.length > 12 ? `…${id.slice(-8)}` : id;
}

/** An edge type with its graph colour. */
export function edgeChip(type: EdgeType): HTMLSpanElement {
  const chip = badge(type, 'edge');
  chip.style.setProperty('--edge-color', EDGE_COLORS[type]);
  return chip;
}

/** Tags as a list of chips. */
export function tagList(tags: readonly string[]): HTMLUListElement | null {
  if (!tags.length) return null;
  return h(
    'ul',
    { class: 'tags', 'aria-label': 'Tags' },
    tags.map((t) => h('li', null, h('a', { href: href('recall', undefined, { tag: t }) }, `#${t}`))),
  );
}

/** Kind, status and freshness of an entry as badges. */
export function entryBadges(entry: { kind: string; status: string; freshness?: string }): HTMLSpanElement {
  return h(
    'span',
    { class: 'badges' },
    badge(entry.kind, 'kind'),
    badge(entry.status, 'status'),
    entry.freshness ? badge(entry.freshness, 'freshness') : null,
  );
}

/** A number with up to `digits` decimals, or a dash. */
export function num(value: number | null | undefined, digits = 3): string {
  return value == null ? '—' : String(Number(value.toFixed(digits)));
}
