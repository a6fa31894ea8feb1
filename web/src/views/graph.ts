import type { EdgeType } from '../../../src/contract/enums.ts';
import { type App, href, type View } from '../app.ts';
import { GraphViewDocument, RecallExplainedDocument, RecentEntriesDocument } from '../documents.ts';
import { field, h, replace, select, shorten } from '../dom.ts';
import type { GraphViewResult } from '../model.ts';
import { edgeChip, entryBadges, entryLink, num, problemBox, shortId } from '../widgets.ts';
import { draw, legend, zoomControls } from './graph-canvas.ts';

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
): Promise<void> {
  if (!query) return;
  replace(found, h('li', { class: 'muted' }, 'Searching…'));
  try {
    const { recall } = await app.gql(RecallExplainedDocument, { query, topK: SEARCH_HITS, hops: 0 });
    if (signal.aborted) return;
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
  const search = () => searchSeeds(app, words.value.trim(), seeds, found, showChips, signal);
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
      field('Find entries to add as seeds', words, 'Runs recall on these words.'),
      h('button', { type: 'button', onclick: search }, 'Search'),
    ),
    h('div', { class: 'wide' }, found),
    field('Hops', hops),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Show graph')),
  );
  // Enter in the search box searches instead of submitting the seeds.
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

/** Draws the loaded graph into `output`, with its zoom buttons, legend and selection panel. */
function showGraph(output: HTMLElement, view: GraphViewResult, hops: string, signal: AbortSignal): void {
  const byId = new Map(view.nodes.map((n) => [n.entry.id, n]));
  const canvas = h('div', {
    class: 'graph-canvas',
    id: 'graph-canvas',
    role: 'img',
    'aria-label': `Graph of ${view.nodes.length} entries and ${view.edges.length} edges; listed below.`,
  });
  const selected = h(
    'div',
    { class: 'selected card', 'aria-live': 'polite', id: 'graph-selected' },
    h('p', { class: 'muted' }, 'Select a node to see its entry.'),
  );
  const showSelected = (id: string) => {
    const node = byId.get(id);
    if (!node) return;
    replace(
      selected,
      h('p', { class: 'content clamp' }, node.entry.content),
      h('p', { class: 'meta-line' }, entryBadges(node.entry), ` hop ${node.hop} · score ${num(node.score, 3)}`),
      h(
        'p',
        { class: 'links-line' },
        h('a', { href: href('entry', id) }, 'Open entry'),
        h('a', { href: href('graph', undefined, { ids: id, hops }) }, 'Centre the graph here'),
      ),
    );
  };
  const stage = h('div', { class: 'graph-stage' }, canvas);
  replace(
    output,
    h(
      'p',
      { class: 'muted', id: 'graph-summary' },
      `${view.nodes.length} ${view.nodes.length === 1 ? 'entry' : 'entries'}, `,
      `${view.edges.length} ${view.edges.length === 1 ? 'edge' : 'edges'}`,
      view.truncated ? ' (truncated: the fanout or node cap left some out)' : '',
    ),
    h('div', { class: 'graph-layout' }, stage, h('div', { class: 'graph-side' }, selected, legend())),
    asList(view),
  );
  const cy = draw(canvas, view, showSelected);
  stage.append(zoomControls(cy));
  window.__cy = cy;
  signal.addEventListener('abort', () => {
    cy.destroy();
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
      const { recent } = await app.gql(RecentEntriesDocument, { n: 5 });
      seedIds = recent.map((e) => e.id);
    }
    if (!seedIds.length) {
      replace(output, h('p', { class: 'muted' }, 'The workspace is empty: capture entries and link them first.'));
      return;
    }
    const { graphView: view } = await app.gql(GraphViewDocument, {
      seedIds,
      hops: Number(hops.value),
    });
    if (signal.aborted || !view) return;
    // The seeds came as ids: name them by their content now that the graph has it.
    for (const n of view.nodes) if (seeds.has(n.entry.id)) seeds.set(n.entry.id, n.entry.content);
    picker.showChips();
    showGraph(output, view, hops.value, signal);
  } catch (error) {
    if (!signal.aborted) replace(output, problemBox(app, error));
  }
};
