/** What an entry page shows of an entry; its write actions are in entry-actions.ts. */

import { href } from '../app.ts';
import { badge, h, time } from '../dom.ts';
import type { EntryDetail } from '../model.ts';
import { edgeChip, entryBadges, entryLink, num, tagList } from '../widgets.ts';

export type Connection = EntryDetail['connections'][number];

const ARROWS = { OUT: '→', IN: '←', BOTH: '↔' } as const;

/** The title with the entry's badges and tags, then its content. */
export function entryHeader(entry: EntryDetail): HTMLElement[] {
  return [
    h(
      'div',
      { class: 'view-head' },
      h('h1', null, 'Entry'),
      h('p', { class: 'badges-line' }, entryBadges(entry), tagList(entry.tags)),
    ),
    h('article', { class: 'card content-card' }, h('p', { class: 'content', id: 'entry-content' }, entry.content)),
  ];
}

/** Every field of the entry as a definition list, then the way to its graph. */
export function entryFacts(entry: EntryDetail): HTMLElement[] {
  const from = entry.classification;
  const rows: [string, Node | string][] = [
    ['Kind', h('span', null, badge(entry.kind, 'kind'), sourceNote(from.kind, from.model))],
    ['Status', badge(entry.status, 'status')],
    ['Freshness', badge(entry.freshness, 'freshness')],
    ['Volatility', h('span', null, entry.volatility, sourceNote(from.volatility, from.model))],
    ['Importance', h('span', null, num(entry.importance, 2), sourceNote(from.importance, from.model))],
    ['Claim', entry.claimTag],
    ['Evidence', entry.evidenceRef ?? '—'],
    ['Source', entry.source ?? '—'],
    ['Recalled', `${entry.recallCount}×`],
    ['Observed', time(entry.observedAt)],
    ['Created', time(entry.createdAt)],
    ['Updated', time(entry.updatedAt)],
    ['Id', h('code', null, entry.id)],
    ['Content hash', h('code', { class: 'hash' }, entry.contentHash)],
  ];
  return [
    h(
      'dl',
      { class: 'meta' },
      rows.map(([k, v]) => h('div', null, h('dt', null, k), h('dd', null, v))),
    ),
    h(
      'p',
      { class: 'links-line' },
      h('a', { href: href('graph', undefined, { ids: entry.id, hops: 2 }) }, 'Show in graph'),
    ),
  ];
}

type Source = EntryDetail['classification']['kind'];

/** Where a classified field came from, in words; nothing when the writer gave it. */
function sourceNote(source: Source, model: string | null | undefined): HTMLElement | string {
  if (source === 'CALLER') return '';
  const words =
    source === 'MODEL'
      ? `proposed by ${model ?? 'the model'}`
      : source === 'HEURISTIC'
        ? 'set by a staleness pass'
        : 'default, waiting for the model';
  return h('small', { class: 'source-note', 'data-source': source }, ` (${words})`);
}

/**
 * What the LLM binding found between this entry and others: the newer one updates or
 * contradicts the older, with the model's reason. Information only; nothing was rewritten.
 */
export function conflictsSection(entry: EntryDetail): HTMLElement | null {
  if (entry.conflicts.length === 0) return null;
  return h(
    'section',
    { 'aria-labelledby': 'conflicts-title', class: 'card' },
    h('h2', { id: 'conflicts-title' }, `Conflicts (${entry.conflicts.length})`),
    h(
      'ul',
      { class: 'conflicts', id: 'conflicts' },
      entry.conflicts.map((c) => {
        const verb =
          c.relation === 'UPDATES'
            ? c.newer
              ? 'This entry updates'
              : 'Updated by'
            : c.newer
              ? 'This entry contradicts'
              : 'Contradicted by';
        return h(
          'li',
          { 'data-relation': c.relation },
          h(
            'div',
            { class: 'meta-line' },
            badge(c.relation, 'op'),
            ` ${verb} `,
            c.entry ? entryLink(c.entry.id, c.entry.content) : 'an entry being forgotten',
          ),
          h('p', null, c.reason, h('small', null, ` — ${c.model}, `, time(c.at))),
        );
      }),
    ),
  );
}

/** The content before each append or rewrite, oldest first, ending at the current content. */
export function revisionsSection(entry: EntryDetail): HTMLElement {
  const count = entry.revisions.length;
  return h(
    'section',
    { 'aria-labelledby': 'revisions-title', class: 'card' },
    h('h2', { id: 'revisions-title' }, `History (${count} revision${count === 1 ? '' : 's'})`),
    count
      ? h(
          'ol',
          { class: 'revisions', id: 'revisions' },
          entry.revisions.map((r) =>
            h(
              'li',
              { 'data-op': r.op },
              h('div', { class: 'meta-line' }, badge(r.op, 'op'), ' content before this change, ', time(r.at)),
              h('p', { class: 'content' }, r.content),
            ),
          ),
          h(
            'li',
            { class: 'now' },
            h('div', { class: 'meta-line' }, badge('NOW', 'op'), ' the current content, above'),
          ),
        )
      : h('p', { class: 'muted' }, 'Never appended to or rewritten.'),
  );
}

/** The entry's edges, each with the entry at its other end and a control to remove it; `message` says how that went. */
export function connectionsSection(
  entry: EntryDetail,
  message: HTMLElement,
  unlinkButton: (connection: Connection) => HTMLElement,
): HTMLElement {
  return h(
    'section',
    { 'aria-labelledby': 'connections-title', class: 'card' },
    h('h2', { id: 'connections-title' }, `Connections (${entry.connections.length})`),
    message,
    entry.connections.length
      ? h(
          'ul',
          { class: 'connections', id: 'connections' },
          entry.connections.map((c) =>
            h(
              'li',
              null,
              h('span', { class: 'arrow', 'aria-label': c.direction.toLowerCase() }, ARROWS[c.direction]),
              edgeChip(c.edge.type),
              entryLink(c.entry.id, c.entry.content, 70),
              h('span', { class: 'muted' }, ` ${num(c.edge.weight, 2)} · ${c.edge.provenance.toLowerCase()}`),
              unlinkButton(c),
            ),
          ),
        )
      : h('p', { class: 'muted' }, 'No edges yet.'),
  );
}
