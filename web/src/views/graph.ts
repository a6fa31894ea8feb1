import type cytoscape from 'cytoscape';
import { EDGE_TYPES, type EdgeType, ENTRY_KINDS } from '../../../src/contract/enums.ts';
import { type App, href, type View } from '../app.ts';
import { GraphViewDocument, RecallExplainedDocument, RecentEntriesDocument } from '../documents.ts';
import { field, h, replace, select, shorten } from '../dom.ts';
import type { GraphViewResult } from '../model.ts';
import { edgeChip, entryBadges, entryLink, num, problemBox, shortId } from '../widgets.ts';
import {
  destroyGraph,
  draw,
  type GraphNode,
  layOut,
  legend,
  merge,
  placeLabels,
  zoomControls,
} from './graph-canvas.ts';

/** How many recall hits the seed search offers. */
const SEARCH_HITS = 8;

/** Runs recall on `query` and lists the hits in `found`, each with a button that adds it as a seed. */
async function searchSeeds(
  app: App,
  query: string,
  seeds: Map<string, string>,
  found: HTMLElement,
  onAdd: () => void,
  signal: AbortSignal,
  latest: () => boolean = () => true,
): Promise<void> {
  if (!query) return;
  replace(found, h('li', { class: 'muted' }, 'Searching…'));
  try {
    const { recall } = await app.gql.fresh(RecallExplainedDocument, { query, topK: SEARCH_HITS, hops: 0 });
    if (signal.aborted || !latest()) return; // a newer search answers instead
    const add = (entry: { id: string; content: string }) => (event: MouseEvent) => {
      seeds.set(entry.id, entry.content);
      (event.currentTarget as HTMLButtonElement).disabled = true;
      onAdd();
    };
    replace(
      found,
      recall.hits.length
        ? recall.hits.map(({ entry }) =>
            h(
              'li',
              { 'data-entry-id': entry.id },
              h(
                'button',
                {
                  type: 'button',
                  class: 'small',
                  'aria-label': `Add seed ${shorten(entry.content, 40)}`,
                  onclick: add(entry),
                  disabled: seeds.has(entry.id),
                },
                'Add',
              ),
              ' ',
              shorten(entry.content, 70),
              ' ',
              entryBadges(entry),
            ),
          )
        : h('li', { class: 'muted' }, 'Nothing matched.'),
    );
  } catch (error) {
    if (!signal.aborted) replace(found, h('li', null, problemBox(app, error)));
  }
}

/**
 * Chooses the graph's seeds by searching: recall runs on the words typed and any hit can be
 * added as a seed, so nobody has to copy an id. `seeds` maps the chosen ids to their content.
 */
function seedPicker(app: App, seeds: Map<string, string>, hops: HTMLSelectElement, signal: AbortSignal) {
  const chips = h('ul', { class: 'seed-chips', id: 'graph-seeds', 'aria-label': 'Seeds' });
  const found = h('ul', { class: 'seed-results', id: 'seed-results', 'aria-live': 'polite' });
  const showChips = () =>
    replace(
      chips,
      seeds.size
        ? [...seeds].map(([id, content]) =>
            h(
              'li',
              { 'data-entry-id': id },
              h('span', { title: content }, content ? shorten(content, 40) : shortId(id)),
              h(
                'button',
                {
                  type: 'button',
                  class: 'small',
                  'aria-label': `Remove seed ${shorten(content || id, 40)}`,
                  onclick: () => {
                    seeds.delete(id);
                    showChips();
                  },
                },
                '×',
              ),
            ),
          )
        : h('li', { class: 'muted' }, 'None chosen: the five newest entries are the seeds.'),
    );
  const words = h('input', { name: 'find', type: 'search', autocomplete: 'off', maxlength: 1000 });
  let asked = 0;
  const search = () => {
    const ask = ++asked;
    return searchSeeds(app, words.value.trim(), seeds, found, showChips, signal, () => ask === asked);
  };
  showChips();
  const form = h(
    'form',
    {
      class: 'card form-grid seed-picker',
      onsubmit: (e: SubmitEvent) => {
        e.preventDefault();
        const ids = [...seeds.keys()].join(',');
        location.hash = href('graph', undefined, { ids, hops: hops.value });
      },
    },
    h('div', { class: 'wide' }, h('h2', null, 'Seeds'), chips),
    h(
      'div',
      { class: 'wide find-row' },
      field('Find entries to add as seeds', words, 'Recall runs on these words as you type.'),
      h('button', { type: 'button', onclick: search }, 'Search'),
    ),
    h('div', { class: 'wide' }, found),
    field('Hops', hops),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Show graph')),
  );
  // Recall runs as the user types, after a short pause; Enter searches at once instead of submitting the seeds.
  let pause = 0;
  words.addEventListener('input', () => {
    clearTimeout(pause);
    pause = window.setTimeout(() => void search(), 250);
  });
  signal.addEventListener('abort', () => clearTimeout(pause));
  words.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    void search();
  });
  return { form, showChips };
}

/** The entries and edges of the graph as a plain list, for screen readers and small screens. */
function asList(view: GraphViewResult): HTMLElement {
  const byId = new Map(view.nodes.map((n) => [n.entry.id, n]));
  return h(
    'details',
    { class: 'card' },
    h('summary', null, 'Entries and edges as a list'),
    h('h2', null, 'Entries'),
    h(
      'ul',
      { class: 'plain-list' },
      view.nodes.map((n) => h('li', null, `hop ${n.hop} `, entryLink(n.entry.id, n.entry.content, 80))),
    ),
    h('h2', null, 'Edges'),
    h(
      'ul',
      { class: 'plain-list' },
      view.edges.map((e) =>
        h(
          'li',
          null,
          entryLink(e.src, byId.get(e.src)?.entry.content, 40),
          ' ',
          edgeChip(e.type as EdgeType),
          ' ',
          entryLink(e.dst, byId.get(e.dst)?.entry.content, 40),
        ),
      ),
    ),
  );
}

/** How many nodes the canvas may hold, as the user may raise it; the server answers at most 50 at a time. */
const BUDGETS = ['50', '100', '200', '400'];

/** Checkboxes that hide entries of a kind or edges of a type from the drawing. */
function filterBox(legendText: string, name: string, values: readonly string[], onChange: () => void) {
  const boxes = values.map((value) => h('input', { type: 'checkbox', name, value, checked: true, onchange: onChange }));
  const element = h(
    'fieldset',
    { class: 'graph-filter' },
    h('legend', null, legendText),
    boxes.map((box) => h('label', null, box, ` ${box.value.toLowerCase().replaceAll('_', ' ')}`)),
  );
  const hidden = () => new Set(boxes.filter((b) => !b.checked).map((b) => b.value));
  return { element, hidden };
}

/**
 * Draws the loaded graph into `output` and makes it explorable in place: double-click a node (or
 * press its Expand button, or E) to add its neighbours without losing the view; a node budget the
 * user can raise, with "Load more" when the server's cut left entries out; filters by edge type
 * and kind; search within the graph; full screen; and the keyboard reaches every node.
 */
function showGraph(app: App, output: HTMLElement, first: GraphViewResult, hops: string, signal: AbortSignal): void {
  const nodes = new Map<string, GraphNode>(first.nodes.map((n) => [n.entry.id, n]));
  const expanded = new Set<string>();
  let truncated = first.truncated;
  const canvas = h('div', {
    class: 'graph-canvas',
    id: 'graph-canvas',
    tabindex: '0',
    role: 'application',
    'aria-roledescription': 'graph',
    'aria-label': 'Graph. Arrow keys move between entries, Enter opens one, E expands it.',
  });
  const selected = h(
    'div',
    { class: 'selected card', 'aria-live': 'polite', id: 'graph-selected' },
    h('p', { class: 'muted' }, 'Select a node (click, or arrow keys in the graph) to see its entry.'),
  );
  const summary = h('p', { class: 'muted', id: 'graph-summary', 'aria-live': 'polite' });
  const note = h('p', { class: 'form-message', id: 'graph-note', role: 'status' });
  const budget = select('budget', BUDGETS, '50');
  const more = h('button', { type: 'button', id: 'graph-more' }, 'Load more');
  const find = h('input', { type: 'search', name: 'find-in-graph', autocomplete: 'off', maxlength: 200 });
  const stage = h('div', { class: 'graph-stage' }, canvas);
  let cy: cytoscape.Core;

  const showSummary = () => {
    const drawn = cy.nodes().length;
    replace(
      summary,
      `${drawn} ${drawn === 1 ? 'entry' : 'entries'} and ${cy.edges().length} edges drawn, of a budget of ${budget.value}.`,
      truncated ? ' The server’s cut (8 neighbours a node, 50 nodes a request) left some out: Load more.' : '',
    );
    more.disabled = !truncated && [...nodes.keys()].every((id) => expanded.has(id));
  };

  /** Adds `data`'s new nodes up to the budget, best first, and lays them out around what is there. */
  const add = (data: GraphViewResult, seeds: string[], around?: string) => {
    const room = Number(budget.value) - nodes.size;
    const fresh = data.nodes.filter((n) => !nodes.has(n.entry.id)).sort((a, b) => b.score - a.score);
    const taken = fresh.slice(0, Math.max(0, room));
    const base = around ? (nodes.get(around)?.hop ?? 0) + 1 : Math.max(...[...nodes.values()].map((n) => n.hop)) + 1;
    for (const n of taken) nodes.set(n.entry.id, { ...n, hop: Math.min(n.hop, base) });
    const added = merge(cy, { nodes: taken.map((n) => nodes.get(n.entry.id) as GraphNode), edges: data.edges }, around);
    if (fresh.length > taken.length) {
      truncated = true;
      // Their neighbours are not all drawn: a raised budget expands them again.
      for (const id of seeds) expanded.delete(id);
      replace(
        note,
        `The node budget of ${budget.value} is reached: raise it to draw ${fresh.length - taken.length} more.`,
      );
    } else replace(note, added ? `Added ${added} ${added === 1 ? 'entry' : 'entries'}.` : 'No new neighbours.');
    applyFilters();
    layOut(cy, true);
    showSummary();
  };

  const expand = async (ids: string[], around?: string) => {
    if (!ids.length) return;
    replace(note, 'Loading neighbours…');
    try {
      const { graphView: view } = await app.gql.fresh(GraphViewDocument, { seedIds: ids.slice(0, 50), hops: 1 });
      if (signal.aborted || !view) return;
      for (const id of ids.slice(0, 50)) expanded.add(id);
      if (view.truncated) truncated = true;
      add(view, ids.slice(0, 50), around);
    } catch (error) {
      if (!signal.aborted) replace(note, problemBox(app, error));
    }
  };
  const loadMore = () => {
    // The entries furthest out that were not expanded yet: where the cut left neighbours out.
    const frontier = [...nodes.values()]
      .filter((n) => !expanded.has(n.entry.id))
      .sort((a, b) => b.hop - a.hop || b.score - a.score)
      .map((n) => n.entry.id);
    truncated = false;
    void expand(frontier);
  };
  more.addEventListener('click', loadMore);
  budget.addEventListener('change', showSummary);

  const showSelected = (id: string) => {
    const node = nodes.get(id);
    if (!node) return;
    replace(
      selected,
      h('p', { class: 'content clamp' }, node.entry.content),
      h('p', { class: 'meta-line' }, entryBadges(node.entry), ` hop ${node.hop} · score ${num(node.score, 3)}`),
      h(
        'p',
        { class: 'links-line' },
        h('a', { href: href('entry', id) }, 'Open entry'),
        h(
          'button',
          { type: 'button', class: 'small', onclick: () => void expand([id], id), disabled: expanded.has(id) },
          expanded.has(id) ? 'Neighbours shown' : 'Expand neighbours',
        ),
        h('a', { href: href('graph', undefined, { ids: id, hops }) }, 'New graph from here'),
      ),
    );
  };

  const kinds = filterBox('Kinds', 'kind', ENTRY_KINDS, () => applyFilters());
  const types = filterBox('Edge types', 'edge-type', EDGE_TYPES, () => applyFilters());
  function applyFilters() {
    if (!cy) return;
    const hiddenKinds = kinds.hidden();
    const hiddenTypes = types.hidden();
    cy.batch(() => {
      cy.nodes().forEach((n) => {
        n.toggleClass('filtered', hiddenKinds.has(n.data('kind')));
      });
      cy.edges().forEach((e) => {
        e.toggleClass('filtered', hiddenTypes.has(e.data('type')));
      });
    });
    placeLabels(cy);
  }

  /** Nodes in reading order for the keyboard: seeds first, then by hop and score. */
  const ordered = () =>
    cy
      .nodes(':visible')
      .toArray()
      .sort((a, b) => a.data('hop') - b.data('hop') || b.data('score') - a.data('score'));
  const focusNode = (node: cytoscape.NodeSingular) => {
    cy.nodes(':selected').unselect();
    node.select();
    const { x1, y1, x2, y2 } = cy.extent();
    const { x, y } = node.position();
    if (x < x1 || x > x2 || y < y1 || y > y2) cy.center(node);
    showSelected(node.id());
  };
  canvas.addEventListener('keydown', (event) => {
    const list = ordered();
    if (!list.length) return;
    const current = cy.nodes(':selected')[0];
    const at = current ? list.findIndex((n) => n.id() === current.id()) : -1;
    if (['ArrowRight', 'ArrowDown', 'ArrowLeft', 'ArrowUp'].includes(event.key)) {
      event.preventDefault();
      const step = event.key === 'ArrowRight' || event.key === 'ArrowDown' ? 1 : -1;
      const next = list[(at + step + list.length) % list.length];
      if (next) focusNode(next);
    } else if (event.key === 'Enter' && current) {
      event.preventDefault();
      location.hash = href('entry', current.id());
    } else if ((event.key === 'e' || event.key === 'E') && current) {
      event.preventDefault();
      void expand([current.id()], current.id());
    }
  });

  const search = () => {
    const term = find.value.trim().toLowerCase();
    cy.batch(() => {
      cy.nodes().removeClass('found faded');
      if (!term) return;
      const hits = cy.nodes().filter((n) => String(n.data('content')).includes(term));
      hits.addClass('found');
      cy.nodes().not(hits).addClass('faded');
    });
    const count = term ? cy.nodes('.found').length : 0;
    replace(note, term ? `${count} ${count === 1 ? 'entry matches' : 'entries match'} “${find.value.trim()}”.` : '');
  };
  find.addEventListener('input', search);
  find.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    const first = cy.nodes('.found')[0];
    if (first) focusNode(first);
  });

  const tools = h(
    'div',
    { class: 'graph-tools card' },
    h('div', { class: 'graph-tools-row' }, field('Find in the graph', find), field('Node budget', budget), more),
    summary,
    note,
    h(
      'details',
      { class: 'graph-filters' },
      h('summary', null, 'Filter by kind and edge type'),
      kinds.element,
      types.element,
    ),
  );
  replace(
    output,
    tools,
    h('div', { class: 'graph-layout' }, stage, h('div', { class: 'graph-side' }, selected, legend())),
    asList(first),
  );
  cy = draw(canvas, first, { onSelect: showSelected, onExpand: (id) => void expand([id], id) });
  stage.append(zoomControls(cy, stage));
  showSummary();
  window.__cy = cy;
  signal.addEventListener('abort', () => {
    destroyGraph(cy);
    if (window.__cy === cy) window.__cy = undefined;
  });
}

/** The neighbourhood of chosen entries (graphView), laid out by cytoscape, edges coloured by type. */
export const graphView: View = async (app, route, root, signal) => {
  const hops = select('hops', ['0', '1', '2', '3'], route.params.get('hops') ?? '1');
  const chosen = (route.params.get('ids') ?? '').split(',').filter(Boolean);
  const seeds = new Map(chosen.map((id) => [id, '']));
  const picker = seedPicker(app, seeds, hops, signal);
  const output = h('div', { id: 'graph-output' });
  replace(root, h('div', { class: 'view-head' }, h('h1', null, 'Graph')), picker.form, output);

  let seedIds = chosen;
  try {
    if (!seedIds.length) {
      const { recent } = await app.gql.fresh(RecentEntriesDocument, { n: 5 });
      seedIds = recent.map((e) => e.id);
    }
    if (!seedIds.length) {
      replace(output, h('p', { class: 'muted' }, 'The workspace is empty: capture entries and link them first.'));
      return;
    }
    const { graphView: view } = await app.gql.fresh(GraphViewDocument, {
      seedIds,
      hops: Number(hops.value),
    });
    if (signal.aborted || !view) return;
    // The seeds came as ids: name them by their content now that the graph has it.
    for (const n of view.nodes) if (seeds.has(n.entry.id)) seeds.set(n.entry.id, n.entry.content);
    picker.showChips();
    showGraph(app, output, view, hops.value, signal);
  } catch (error) {
    if (!signal.aborted) replace(output, problemBox(app, error));
  }
};
