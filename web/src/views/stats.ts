import type { View } from '../app.ts';
import { BriefDocument } from '../documents.ts';
import { h, replace, time } from '../dom.ts';
import type { CountBy, EntrySummary } from '../model.ts';
import { entryBadges, entryLink, problemBox } from '../widgets.ts';

function bars(title: string, rows: CountBy[]): HTMLElement {
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
              h('meter', { min: 0, max, value: r.count, 'aria-label': r.key }),
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

/** Counts of the workspace and the agent's brief. */
export const statsView: View = async (app, _route, root, signal) => {
  replace(root, h('h1', null, 'Stats and brief'), h('p', { class: 'muted' }, 'Loading…'));
  try {
    const { brief } = await app.gql(BriefDocument);
    if (signal.aborted) return;
    const s = brief.stats;
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
        h('pre', { class: 'brief', id: 'brief-text' }, brief.text),
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
