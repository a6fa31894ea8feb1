import type { View } from '../app.ts';
import { BriefDocument } from '../documents.ts';
import { h, replace, time } from '../dom.ts';
import type { CountBy, EntrySummary } from '../model.ts';
import { EDGE_COLORS, KIND_COLORS } from '../model.ts';
import { entryBadges, entryLink, problemBox } from '../widgets.ts';

/** Colours of the bars: kinds and edge types as in the graph, states by what they mean. */
const BAR_COLORS: Record<string, string> = {
  ...KIND_COLORS,
  ...EDGE_COLORS,
  ACTIVE: '#2b8a3e',
  CANONICAL: '#1971c2',
  STALE: '#e67700',
  SUPERSEDED: '#c92a2a',
  DEPRECATED: '#868e96',
  DURABLE: '#1971c2',
  EVOLVING: '#2b8a3e',
  EPHEMERAL: '#e67700',
  VERIFIED: '#2b8a3e',
  INFERRED: '#7048e8',
  UNKNOWN: '#868e96',
};

function bars(title: string, rows: Pick<CountBy, 'key' | 'count'>[]): HTMLElement {
  const max = Math.max(1, ...rows.map((r) => r.count));
  return h(
    'section',
    { class: 'card', 'aria-label': title },
    h('h2', null, title),
    rows.length
      ? h(
          'ul',
          { class: 'bars' },
          rows.map((r) =>
            h(
              'li',
              null,
              h('span', { class: 'bar-label' }, r.key),
              h(
                'span',
                { class: 'bar-track', 'aria-hidden': 'true' },
                h('span', {
                  class: 'bar',
                  style: `width:${(100 * r.count) / max}%;background:${BAR_COLORS[r.key] ?? 'var(--accent)'}`,
                }),
              ),
              h('span', { class: 'bar-count' }, String(r.count)),
            ),
          ),
        )
      : h('p', { class: 'muted' }, 'None yet.'),
  );
}

function entries(title: string, list: EntrySummary[]): HTMLElement {
  return h(
    'section',
    { class: 'card', 'aria-label': title },
    h('h2', null, title),
    list.length
      ? h(
          'ul',
          { class: 'plain-list' },
          list.map((e) => h('li', null, entryLink(e.id, e.content, 90), ' ', entryBadges(e))),
        )
      : h('p', { class: 'muted' }, 'None.'),
  );
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** The brief's text with every entry id as a link to the entry (its text on hover when the brief lists it). */
function briefText(text: string, names: Map<string, string>): (Node | string)[] {
  const out: (Node | string)[] = [];
  let last = 0;
  for (const m of text.matchAll(UUID)) {
    const at = m.index ?? 0;
    out.push(text.slice(last, at));
    const id = m[0];
    const link = entryLink(id, undefined);
    link.title = names.get(id) ?? id;
    out.push(link);
    last = at + id.length;
  }
  out.push(text.slice(last));
  return out;
}

/** Counts of the workspace and the agent's brief. */
export const statsView: View = async (app, _route, root, signal) => {
  replace(root, h('h1', null, 'Stats and brief'), h('p', { class: 'muted' }, 'Loading…'));
  try {
    const { brief } = await app.gql.fresh(BriefDocument);
    if (signal.aborted) return;
    const s = brief.stats;
    const names = new Map([...brief.recent, ...brief.important, ...brief.stale].map((e) => [e.id, e.content] as const));
    const numbers: [string, number][] = [
      ['entries', s.entries],
      ['edges', s.edges],
      ['tags', s.tags],
      ['revisions', s.revisions],
    ];
    replace(
      root,
      h('div', { class: 'view-head' }, h('h1', null, 'Stats and brief')),
      h(
        'ul',
        { class: 'numbers', id: 'stats-numbers' },
        numbers.map(([k, v]) => h('li', { class: 'card' }, h('strong', null, String(v)), h('span', null, k))),
      ),
      h('p', { class: 'muted' }, 'Oldest ', time(s.oldestAt), ' · newest ', time(s.newestAt)),
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'brief-title' },
        h('h2', { id: 'brief-title' }, 'Brief'),
        h('div', { class: 'brief', id: 'brief-text' }, briefText(brief.text, names)),
      ),
      h(
        'div',
        { class: 'grid' },
        bars('By kind', s.byKind),
        bars('By status', s.byStatus),
        bars('By volatility', s.byVolatility),
        bars('By claim', s.byClaimTag),
        bars('Edges by type', s.edgesByType),
        bars(
          'Top tags',
          brief.topTags.map((t) => ({ key: t.tag, count: t.count })),
        ),
      ),
      h(
        'div',
        { class: 'grid' },
        entries('Recent', brief.recent),
        entries('Important', brief.important),
        entries('Stale', brief.stale),
      ),
    );
  } catch (error) {
    if (!signal.aborted) replace(root, h('h1', null, 'Stats and brief'), problemBox(app, error));
  }
};
