import cytoscape from 'cytoscape';
import { EDGE_TYPES, type EdgeType } from '../../../src/contract/enums.ts';
import { href, type View } from '../app.ts';
import { errorBox, field, h, replace, select, shorten } from '../dom.ts';
import { GraphViewDocument, RecentEntriesDocument } from '../generated/graphql.ts';
import { EDGE_COLORS, type GraphViewResult, KIND_COLORS } from '../model.ts';
import { edgeChip, entryBadges, entryLink, num } from '../widgets.ts';

declare global {
  interface Window {
    /** The graph's cytoscape instance, for tests and for poking at it from the console. */
    __cy?: cytoscape.Core;
  }
}

function legend(): HTMLElement {
  return h(
    'figure',
    { class: 'legend', 'aria-labelledby': 'legend-title' },
    h('figcaption', { id: 'legend-title' }, 'Edge types'),
    h(
      'ul',
      null,
      EDGE_TYPES.map((type) =>
        h(
          'li',
          null,
          h('span', { class: 'swatch', style: `background:${EDGE_COLORS[type]}`, 'aria-hidden': 'true' }),
          type.toLowerCase().replaceAll('_', ' '),
          type === 'RELATES_TO' ? ' (both ways)' : '',
        ),
      ),
    ),
    h('p', { class: 'hint' }, 'Node colour is the entry kind; seeds have a thick ring.'),
  );
}

function draw(container: HTMLElement, view: GraphViewResult, onSelect: (id: string) => void): cytoscape.Core {
  const dark = matchMedia('(prefers-color-scheme: dark)').matches;
  const cy = cytoscape({
    container,
    elements: [
      ...view.nodes.map((n) => ({
        data: {
          id: n.entry.id,
          label: shorten(n.entry.content, 36),
          color: KIND_COLORS[n.entry.kind],
          hop: n.hop,
        },
        classes: n.hop === 0 ? 'seed' : '',
      })),
      ...view.edges.map((e) => ({
        data: {
          id: `${e.src}|${e.type}|${e.dst}`,
          source: e.src,
          target: e.dst,
          type: e.type,
          color: EDGE_COLORS[e.type],
          width: 1.5 + 3 * e.weight,
        },
        classes: e.type === 'RELATES_TO' ? 'symmetric' : '',
      })),
    ],
    style: [
      {
        selector: 'node',
        style: {
          'background-color': 'data(color)',
          label: 'data(label)',
          color: dark ? '#e5e7eb' : '#1f2937',
          'font-size': 11,
          'text-wrap': 'ellipsis',
          'text-max-width': '140px',
          'text-valign': 'bottom',
          'text-margin-y': 4,
          'text-background-color': dark ? '#1a1f26' : '#ffffff',
          'text-background-opacity': 0.85,
          'text-background-padding': '2px',
          width: 22,
          height: 22,
        },
      },
      {
        selector: 'node.seed',
        style: { 'border-width': 4, 'border-color': dark ? '#f9fafb' : '#111827', width: 30, height: 30 },
      },
      { selector: 'node:selected', style: { 'overlay-opacity': 0.2, 'overlay-color': '#f59e0b' } },
      {
        selector: 'edge',
        style: {
          'line-color': 'data(color)',
          'target-arrow-color': 'data(color)',
          'target-arrow-shape': 'triangle',
          width: 'data(width)',
          'curve-style': 'bezier',
        },
      },
      { selector: 'edge.symmetric', style: { 'target-arrow-shape': 'none' } },
    ],
    wheelSensitivity: 0.3,
    minZoom: 0.2,
    maxZoom: 3,
  });
  cy.on('tap', 'node', (event) => onSelect(event.target.id()));
  // Rings by hop: the seeds in the middle, each hop further out, so "how far" reads at a glance.
  const layout = cy.layout({
    name: 'concentric',
    concentric: (node) => 10 - Number(node.data('hop')),
    levelWidth: () => 1,
    minNodeSpacing: 70,
    avoidOverlap: true,
    animate: false,
    fit: true,
    padding: 40,
  });
  // Fitting two or three nodes would blow them up to the maximum zoom; keep them readable.
  layout.one('layoutstop', () => {
    if (cy.zoom() > 1.5) {
      cy.zoom(1.5);
      cy.center();
    }
  });
  layout.run();
  return cy;
}

/** The neighbourhood of chosen entries (graphView), laid out by cytoscape, edges coloured by type. */
export const graphView: View = async (app, route, root, signal) => {
  const ids = h('input', {
    name: 'ids',
    value: route.params.get('ids') ?? '',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  const hops = select('hops', ['0', '1', '2', '3'], route.params.get('hops') ?? '1');
  const output = h('div', { id: 'graph-output' });
  const form = h(
    'form',
    {
      class: 'card form-grid',
      onsubmit: (e: SubmitEvent) => {
        e.preventDefault();
        location.hash = href('graph', undefined, { ids: ids.value.replace(/\s+/g, ''), hops: hops.value });
      },
    },
    h('div', { class: 'wide' }, field('Seed entry ids', ids, 'Comma-separated. Empty: the five most recent entries.')),
    field('Hops', hops),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Show')),
  );
  replace(root, h('div', { class: 'view-head' }, h('h1', null, 'Graph')), form, output);

  let seeds = (route.params.get('ids') ?? '').split(',').filter(Boolean);
  try {
    if (!seeds.length) {
      const { recent } = await app.gql(RecentEntriesDocument, { n: 5 });
      seeds = recent.map((e) => e.id);
    }
    if (!seeds.length) {
      replace(output, h('p', { class: 'muted' }, 'The workspace is empty: capture entries and link them first.'));
      return;
    }
    const { graphView: view } = await app.gql(GraphViewDocument, {
      seedIds: seeds,
      hops: Number(hops.value),
    });
    if (signal.aborted || !view) return;

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
          h('a', { href: href('graph', undefined, { ids: id, hops: hops.value }) }, 'Centre the graph here'),
        ),
      );
    };

    replace(
      output,
      h(
        'p',
        { class: 'muted', id: 'graph-summary' },
        `${view.nodes.length} ${view.nodes.length === 1 ? 'entry' : 'entries'}, `,
        `${view.edges.length} ${view.edges.length === 1 ? 'edge' : 'edges'}`,
        view.truncated ? ' (truncated: the fanout or node cap left some out)' : '',
      ),
      h('div', { class: 'graph-layout' }, canvas, h('div', { class: 'graph-side' }, legend(), selected)),
      h(
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
      ),
    );
    const cy = draw(canvas, view, showSelected);
    window.__cy = cy;
    signal.addEventListener('abort', () => {
      cy.destroy();
      if (window.__cy === cy) window.__cy = undefined;
    });
  } catch (error) {
    if (!signal.aborted) replace(output, errorBox(error));
  }
};
