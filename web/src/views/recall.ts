import { ENTRY_KINDS, ENTRY_STATUSES } from '../../../src/contract/enums.ts';
import { href, type View } from '../app.ts';
import { type EntryKind, type EntryStatus, RecallExplainedDocument } from '../documents.ts';
import { badge, type Child, field, h, replace, select, time } from '../dom.ts';
import { highlighted, matchedTerms } from '../matches.ts';
import type { RecallHit, RecallResult } from '../model.ts';
import { edgeChip, entryBadges, entryLink, num, problemBox, tagList } from '../widgets.ts';

/** 1st, 2nd, 3rd, 4th, … 11th, 12th, 13th, … 21st. */
export function ordinal(n: number): string {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const suffix = teen ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/**
 * Each hit's position by relevance alone (`score`, which is explain.final), ties kept in final
 * order. Recall orders by relevance, then the diversity step (MMR) and the rule that an old
 * version follows its successor may move hits; a position that differs from `rank` shows it.
 */
function relevancePositions(hits: readonly RecallHit[]): Map<RecallHit, number> {
  const byScore = [...hits].sort((a, b) => b.score - a.score || a.rank - b.rank);
  return new Map(byScore.map((hit, i) => [hit, i + 1]));
}

/** Why a hit is not where its score alone would put it, or null when it is. */
function movedNote(hit: RecallHit, relevance: number | undefined, fixedOrder: boolean): HTMLElement | null {
  if (fixedOrder) return h('p', { class: 'order-note' }, 'A time-only query: hits are listed newest first.');
  if (relevance === undefined || relevance === hit.rank) return null;
  const move = `from ${ordinal(relevance)} to ${ordinal(hit.rank)}`;
  let text: string;
  if (hit.rank < relevance) {
    text = `Moved up ${move}: the diversity step (MMR) moved a near-duplicate of a hit above it further down.`;
  } else if (hit.entry.freshness === 'SUPERSEDED') {
    text = `Moved ${move}: an old version is listed after the entry that supersedes it, and the diversity step (MMR) moves near-duplicates down.`;
  } else {
    text = `Moved ${move} by the diversity step (MMR) to avoid near-duplicates: it resembles a hit listed above it.`;
  }
  return h('p', { class: 'order-note', 'data-moved': `${relevance}-${hit.rank}` }, text);
}

/** A factor as "× 0.93", with the sense of it. */
const factor = (value: number, what: string) => `× ${num(value, 3)} ${what}`;

/** Why the hit scored what it did, in sentences: matched words, the graph path, each factor. */
function explainWords(hit: RecallHit, query: string, names: Map<string, string>): HTMLElement {
  const e = hit.explain;
  const lines: Child[][] = [];
  const matched = matchedTerms(query, hit.entry.content);
  if (e.keywordRank != null) {
    lines.push([
      `Keyword match, ${ordinal(e.keywordRank)} by keywords: `,
      matched.length
        ? matched.flatMap((m, i) => [i ? ', ' : '', h('mark', null, m.term), ` ×${m.count}`])
        : 'the stemmed words of the query',
      '.',
    ]);
  } else {
    lines.push(['No keyword of the query is in the entry.']);
  }
  if (hit.via) {
    const other = hit.via.src === hit.entry.id ? hit.via.dst : hit.via.src;
    const outward = hit.via.dst === hit.entry.id;
    lines.push([
      `Reached through the graph (hop ${hit.hop ?? 1}): a `,
      edgeChip(hit.via.type),
      ` edge (weight ${num(hit.via.weight, 2)}) ${outward ? 'from' : 'to'} `,
      entryLink(other, names.get(other), 50),
      '.',
    ]);
  }
  if (e.vectorRank != null) lines.push([`Similar in meaning: ${ordinal(e.vectorRank)} by embeddings.`]);
  lines.push([`The ranks fuse into ${num(e.rrf, 5)} (reciprocal rank fusion), then:`]);
  const factors = h(
    'ul',
    { class: 'factors' },
    h('li', null, factor(e.decay, 'for age (time decay by volatility)')),
    h('li', null, factor(e.recallBoost, `for being recalled before`)),
    h('li', null, factor(e.importance, `for importance ${num(hit.entry.importance, 2)}`)),
    h('li', null, factor(e.tagOverlap, 'for tags shared with the query')),
    h('li', null, h('strong', null, `= ${num(e.final, 5)}`), ' final score'),
  );
  return h(
    'div',
    { class: 'explain-words' },
    lines.map((l) => h('p', null, l)),
    factors,
  );
}

function explainTable(
  hit: RecallHit,
  note: HTMLElement | null,
  query: string,
  names: Map<string, string>,
): HTMLElement {
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
    h('summary', null, 'Why this score', note ? ' and place' : ''),
    note,
    explainWords(hit, query, names),
    h(
      'details',
      { class: 'explain-numbers' },
      h('summary', null, 'The numbers'),
      h(
        'table',
        null,
        h(
          'tbody',
          null,
          rows.map(([k, v]) => h('tr', null, h('th', { scope: 'row' }, k), h('td', null, v))),
        ),
      ),
    ),
  );
}

function hitItem(hit: RecallHit, note: HTMLElement | null, query: string, names: Map<string, string>): HTMLLIElement {
  return h(
    'li',
    { class: 'hit card', 'data-entry-id': hit.entry.id, 'data-via': hit.via?.type },
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
      hit.snippet ? highlighted(hit.snippet, query) : h('em', { class: 'muted' }, '(no snippet: the budget was spent)'),
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
      h('a', { href: href('graph', undefined, { ids: hit.entry.id, hops: 1 }), class: 'graph-link' }, 'Show in graph'),
    ),
    explainTable(hit, note, query, names),
  );
}

const OMITTED_REASONS: Record<string, string> = {
  'mmr-diversity': 'left out by the diversity step (MMR): too close to a hit above',
  'below topK': 'below the top K',
  deprecated: 'deprecated (ask for DEPRECATED to see it)',
  'auto-pattern': 'an automatic pattern entry',
};

/** The query in one line, for the collapsed form on a phone. */
function querySummary(p: URLSearchParams, query: string): string {
  const hops = p.get('hops') ?? '1';
  const parts = [`“${query || '(tag only)'}”`, `top ${p.get('k') ?? 8}`, `${hops} hop${hops === '1' ? '' : 's'}`];
  for (const key of ['kind', 'status', 'tag'] as const) if (p.get(key)) parts.push(`${key} ${p.get(key)}`);
  if (p.get('full') === '1') parts.push('whole contents');
  return parts.join(' · ');
}

function resultView(result: RecallResult): HTMLElement {
  const positions = relevancePositions(result.hits);
  const fixedOrder = !result.queryUsed && result.timeRange != null;
  const names = new Map(result.hits.map((hit) => [hit.entry.id, hit.entry.content]));
  const query = result.queryUsed ?? '';
  const items = result.hits.map((hit) => hitItem(hit, movedNote(hit, positions.get(hit), fixedOrder), query, names));
  const allIds = result.hits.map((hit) => hit.entry.id).join(',');
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
    result.hits.length > 1
      ? h(
          'p',
          null,
          h('a', { href: href('graph', undefined, { ids: allIds, hops: 1 }) }, 'Show these hits in the graph'),
        )
      : null,
    result.hits.length
      ? h('ol', { class: 'hits', id: 'recall-hits' }, items)
      : h('p', { class: 'muted' }, 'Nothing matched.'),
    result.omitted.length
      ? h(
          'details',
          { class: 'omitted' },
          h('summary', null, `${result.omitted.length} candidates left out`),
          h(
            'ul',
            null,
            result.omitted.map((o) =>
              h('li', null, entryLink(o.entryId, undefined), ` — ${OMITTED_REASONS[o.reason] ?? o.reason}`),
            ),
          ),
        )
      : null,
  );
}

/**
 * The recall just run as a GraphQL request (the document the dashboard sent and its variables),
 * to paste into GraphiQL, a client or an agent's tool call; with a button that copies it.
 */
function asGraphQL(variables: Record<string, unknown>): HTMLElement {
  const text = `${RecallExplainedDocument.text}\n\n# variables\n${JSON.stringify(variables, null, 2)}`;
  const said = h('span', { class: 'muted', role: 'status' });
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      said.textContent = ' Copied.';
    } catch {
      said.textContent = ' This browser did not allow copying: select the text below instead.';
    }
  };
  return h(
    'details',
    { class: 'card as-graphql', id: 'recall-graphql' },
    h('summary', null, 'This recall as GraphQL'),
    h('p', null, h('button', { type: 'button', class: 'small', onclick: copy }, 'Copy as GraphQL'), said),
    h('pre', { class: 'graphql-text' }, text),
  );
}

/** The recall form over the hash's parameters; submitting puts the query into the hash. */
function recallForm(p: URLSearchParams): { form: HTMLFormElement; q: HTMLInputElement } {
  const q = h('input', { name: 'q', type: 'search', required: true, maxlength: 1000, value: p.get('q') ?? '' });
  const topK = h('input', { name: 'k', type: 'number', min: 1, max: 50, value: p.get('k') ?? '8' });
  const hops = select('hops', ['0', '1', '2', '3'], p.get('hops') ?? '1');
  const kind = select('kind', ENTRY_KINDS, p.get('kind') ?? '', 'any kind');
  const status = select('status', ENTRY_STATUSES, p.get('status') ?? '', 'any but DEPRECATED');
  const tag = h('input', { name: 'tag', value: p.get('tag') ?? '', autocomplete: 'off' });
  const full = h('input', { id: 'recall-full', name: 'full', type: 'checkbox', checked: p.get('full') === '1' });
  const form = h(
    'form',
    {
      class: 'card form-grid recall-form',
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
  return { form, q };
}

/** Ranked recall with snippets, freshness, arms and the score's parts. The query lives in the hash. */
export const recallView: View = async (app, route, root, signal) => {
  const p = route.params;
  const { form, q } = recallForm(p);
  const results = h('div', { id: 'recall-output', 'aria-live': 'polite' });
  // On a phone the results matter once they show: the form folds into one line until asked for.
  const summaryText = h('p', { id: 'recall-summary-text' });
  const edit = () => {
    panel.classList.remove('collapsed');
    q.focus();
  };
  const summary = h(
    'div',
    { class: 'query-summary', id: 'recall-summary' },
    summaryText,
    h('button', { type: 'button', onclick: edit }, 'Edit query'),
  );
  const panel = h('div', { class: 'recall-panel' }, summary, form);
  replace(root, h('div', { class: 'view-head' }, h('h1', null, 'Recall')), panel, results);

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
    const variables = {
      query,
      topK: Number(p.get('k') ?? 8),
      hops: Number(p.get('hops') ?? 1),
      full: p.get('full') === '1',
      kind: (p.get('kind') || undefined) as EntryKind | undefined,
      tag: p.get('tag') || undefined,
      filter: p.get('status') ? { statuses: [p.get('status') as EntryStatus] } : undefined,
    };
    const { recall } = await app.gql.fresh(RecallExplainedDocument, variables);
    if (signal.aborted) return;
    replace(results, resultView(recall), asGraphQL(variables));
    summaryText.textContent = querySummary(p, query);
    panel.classList.add('collapsed');
  } catch (error) {
    if (!signal.aborted) replace(results, problemBox(app, error));
  }
};
