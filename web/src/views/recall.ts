import { ENTRY_KINDS, ENTRY_STATUSES } from '../../../src/contract/enums.ts';
import { href, type View } from '../app.ts';
import { badge, errorBox, field, h, replace, select, time } from '../dom.ts';
import { type EntryKind, type EntryStatus, RecallExplainedDocument } from '../generated/graphql.ts';
import type { RecallHit, RecallResult } from '../model.ts';
import { edgeChip, entryBadges, entryLink, num, tagList } from '../widgets.ts';

function explainTable(hit: RecallHit): HTMLElement {
  const e = hit.explain;
  const rows: [string, string][] = [
    ['keyword rank', e.keywordRank == null ? '—' : String(e.keywordRank)],
    ['bm25', num(e.bm25)],
    ['graph score', num(e.graphScore)],
    ['vector rank', e.vectorRank == null ? '—' : String(e.vectorRank)],
    ['rrf (fusion)', num(e.rrf, 5)],
    ['time decay', num(e.decay)],
    ['recall boost', num(e.recallBoost)],
    ['importance factor', num(e.importance)],
    ['tag overlap', num(e.tagOverlap)],
    ['final', num(e.final, 5)],
  ];
  return h(
    'details',
    { class: 'explain' },
    h('summary', null, 'Why this score'),
    h(
      'table',
      null,
      h(
        'tbody',
        null,
        rows.map(([k, v]) => h('tr', null, h('th', { scope: 'row' }, k), h('td', null, v))),
      ),
    ),
  );
}

function hitItem(hit: RecallHit): HTMLLIElement {
  return h(
    'li',
    { class: 'hit card', 'data-entry-id': hit.entry.id },
    h(
      'div',
      { class: 'hit-head' },
      h('span', { class: 'rank' }, `#${hit.rank}`),
      entryLink(hit.entry.id, hit.entry.content, 70),
      h('span', { class: 'score', title: 'relevance before diversity (explain.final)' }, `score ${num(hit.score, 4)}`),
    ),
    h(
      'blockquote',
      { class: 'snippet' },
      hit.snippet || h('em', { class: 'muted' }, '(no snippet: the budget was spent)'),
    ),
    h(
      'div',
      { class: 'meta-line' },
      entryBadges(hit.entry),
      h(
        'span',
        { class: 'arms', 'aria-label': 'Arms' },
        hit.arms.map((a) => badge(a, 'arm')),
      ),
      hit.truncated ? badge('truncated', 'muted-badge') : null,
      hit.hop != null && hit.hop > 0 ? h('span', { class: 'muted' }, `hop ${hit.hop}`) : null,
      hit.via ? h('span', { class: 'muted' }, 'via ', edgeChip(hit.via.type)) : null,
      tagList(hit.entry.tags),
    ),
    explainTable(hit),
  );
}

function resultView(result: RecallResult): HTMLElement {
  return h(
    'section',
    { 'aria-labelledby': 'recall-results' },
    h(
      'h2',
      { id: 'recall-results', tabindex: '-1' },
      `${result.hits.length} hit${result.hits.length === 1 ? '' : 's'}`,
    ),
    h(
      'p',
      { class: 'muted' },
      `Searched “${result.queryUsed || '(time range only)'}”`,
      result.timeRange
        ? [
            ' in ',
            h('strong', null, result.timeRange.phrase),
            ' (',
            time(result.timeRange.from),
            ' – ',
            time(result.timeRange.to),
            ')',
          ]
        : null,
      ` · ${result.candidates} candidates · ${result.usedChars}${result.budgetChars == null ? '' : ` / ${result.budgetChars}`} characters · policy ${result.policyVersion}`,
    ),
    result.hits.length
      ? h('ol', { class: 'hits', id: 'recall-hits' }, result.hits.map(hitItem))
      : h('p', { class: 'muted' }, 'Nothing matched.'),
    result.omitted.length
      ? h(
          'details',
          { class: 'omitted' },
          h('summary', null, `${result.omitted.length} candidates left out`),
          h(
            'ul',
            null,
            result.omitted.map((o) => h('li', null, entryLink(o.entryId, undefined), ` — ${o.reason}`)),
          ),
        )
      : null,
  );
}

/** Ranked recall with snippets, freshness, arms and the score's parts. The query lives in the hash. */
export const recallView: View = async (app, route, root, signal) => {
  const p = route.params;
  const q = h('input', { name: 'q', type: 'search', required: true, maxlength: 1000, value: p.get('q') ?? '' });
  const topK = h('input', { name: 'k', type: 'number', min: 1, max: 50, value: p.get('k') ?? '8' });
  const hops = select('hops', ['0', '1', '2', '3'], p.get('hops') ?? '1');
  const kind = select('kind', ENTRY_KINDS, p.get('kind') ?? '', 'any kind');
  const status = select('status', ENTRY_STATUSES, p.get('status') ?? '', 'any but DEPRECATED');
  const tag = h('input', { name: 'tag', value: p.get('tag') ?? '', autocomplete: 'off' });
  const full = h('input', { id: 'recall-full', name: 'full', type: 'checkbox', checked: p.get('full') === '1' });
  const results = h('div', { id: 'recall-output', 'aria-live': 'polite' });

  const form = h(
    'form',
    {
      class: 'card form-grid',
      role: 'search',
      onsubmit: (event: SubmitEvent) => {
        event.preventDefault();
        location.hash = href('recall', undefined, {
          q: q.value.trim(),
          k: topK.value,
          hops: hops.value,
          kind: kind.value,
          status: status.value,
          tag: tag.value.trim(),
          full: full.checked ? '1' : undefined,
        });
      },
    },
    h('div', { class: 'wide' }, field('Query', q, 'Words, and time phrases such as “last week” or “in March 2026”.')),
    field('Top K', topK),
    field('Graph hops', hops),
    field('Kind', kind),
    field('Status', status),
    field('Tag', tag),
    h('div', { class: 'field checkbox' }, full, h('label', { for: 'recall-full' }, 'Whole contents')),
    h('div', { class: 'actions wide' }, h('button', { type: 'submit', class: 'primary' }, 'Recall')),
  );
  replace(root, h('div', { class: 'view-head' }, h('h1', null, 'Recall')), form, results);

  const query = p.get('q') ?? (p.get('tag') ? '' : null);
  if (query === null) {
    q.focus();
    return;
  }
  if (!query && p.get('tag')) {
    replace(results, h('p', { class: 'muted' }, 'Enter words to recall entries with this tag.'));
    q.focus();
    return;
  }
  replace(results, h('p', { class: 'muted' }, 'Recalling…'));
  try {
    const { recall } = await app.gql(RecallExplainedDocument, {
      query,
      topK: Number(p.get('k') ?? 8),
      hops: Number(p.get('hops') ?? 1),
      full: p.get('full') === '1',
      kind: (p.get('kind') || undefined) as EntryKind | undefined,
      tag: p.get('tag') || undefined,
      filter: p.get('status') ? { statuses: [p.get('status') as EntryStatus] } : undefined,
    });
    if (signal.aborted) return;
    replace(results, resultView(recall));
  } catch (error) {
    if (!signal.aborted) replace(results, errorBox(error));
  }
};
