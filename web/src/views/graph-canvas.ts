import cytoscape from 'cytoscape';
import { EDGE_TYPES, ENTRY_KINDS } from '../../../src/contract/enums.ts';
import { h, shorten } from '../dom.ts';
import { EDGE_COLORS, type GraphViewResult, KIND_COLORS } from '../model.ts';

declare global {
  interface Window {
    /** The graph's cytoscape instance, for tests and for poking at it from the console. */
    __cy?: cytoscape.Core;
  }
}

/** Node labels stay short; the full text is in the side panel and the list below. */
const LABEL_CHARS = 28;
/** Beyond this zoom a fitted small graph looks blown up; fitting stops here. */
const FIT_MAX_ZOOM = 1.5;

const words = (name: string) => name.toLowerCase().replaceAll('_', ' ');

/** What the colours, arrows, widths and rings of the graph mean. */
export function legend(): HTMLElement {
  const item = (swatch: HTMLElement, ...text: string[]) => h('li', null, swatch, ...text);
  return h(
    'figure',
    { class: 'legend', 'aria-labelledby': 'legend-title', id: 'graph-legend' },
    h('figcaption', { id: 'legend-title' }, 'Legend'),
    h('h3', null, 'Entry kinds'),
    h(
      'ul',
      { class: 'legend-kinds' },
      ENTRY_KINDS.map((kind) =>
        h(
          'li',
          { 'data-kind': kind },
          h('span', { class: 'dot', style: `background:${KIND_COLORS[kind]}`, 'aria-hidden': 'true' }),
          words(kind),
        ),
      ),
    ),
    h('h3', null, 'Edge types'),
    h(
      'ul',
      { class: 'legend-edges' },
      EDGE_TYPES.map((type) =>
        h(
          'li',
          { 'data-edge-type': type },
          h('span', { class: 'swatch', style: `background:${EDGE_COLORS[type]}`, 'aria-hidden': 'true' }),
          words(type),
        ),
      ),
    ),
    h('h3', null, 'Shapes'),
    h(
      'ul',
      { class: 'legend-styles' },
      item(h('span', { class: 'glyph', 'aria-hidden': 'true' }, '→'), 'arrow: from source to target'),
      item(h('span', { class: 'glyph', 'aria-hidden': 'true' }, '—'), 'no arrow: relates to (both ways)'),
      item(h('span', { class: 'glyph thick', 'aria-hidden': 'true' }, '—'), 'thicker line: heavier weight'),
      item(h('span', { class: 'dot ring', 'aria-hidden': 'true' }), 'thick ring: a seed'),
    ),
  );
}

function graphStyle(dark: boolean): cytoscape.StylesheetStyle[] {
  const text = dark ? '#e5e7eb' : '#1f2937';
  const paper = dark ? '#1a1f26' : '#ffffff';
  return [
    {
      selector: 'node',
      style: {
        'background-color': 'data(color)',
        label: 'data(label)',
        color: text,
        'font-size': 11,
        'text-wrap': 'ellipsis',
        'text-max-width': '130px',
        'text-valign': 'bottom',
        'text-margin-y': 4,
        'text-background-color': paper,
        'text-background-opacity': 0.85,
        'text-background-padding': '2px',
        width: 22,
        height: 22,
      },
    },
    { selector: 'node.seed', style: { 'border-width': 4, 'border-color': text, width: 30, height: 30 } },
    // Crowded: only the labels that fit are drawn; the others show on hover or selection, on top.
    { selector: 'node.quiet', style: { label: '' } },
    {
      selector: 'node.hover, node:selected',
      style: { label: 'data(label)', 'z-index': 10, 'text-background-opacity': 1 },
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
  ];
}

type Box = cytoscape.BoundingBox12 & cytoscape.BoundingBoxWH;
const overlaps = (a: Box, b: Box) => a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;

/**
 * Draws as many labels as fit without touching another node or label: seeds first, then by
 * hop and score. The others show on hover or selection, so a crowded graph stays readable.
 */
export function placeLabels(cy: cytoscape.Core): void {
  const nodes = cy
    .nodes()
    .toArray()
    .sort((a, b) => a.data('hop') - b.data('hop') || b.data('score') - a.data('score'));
  for (const node of nodes) node.addClass('quiet');
  const boxes = new Map(nodes.map((n) => [n.id(), n.boundingBox({ includeLabels: true }) as Box]));
  for (const node of nodes) {
    node.removeClass('quiet');
    const box = node.boundingBox({ includeLabels: true }) as Box;
    const clash = nodes.some((other) => other !== node && overlaps(box, boxes.get(other.id()) as Box));
    if (clash) node.addClass('quiet');
    else boxes.set(node.id(), box);
  }
}

function fitGraph(cy: cytoscape.Core): void {
  cy.fit(undefined, 30);
  if (cy.zoom() > FIT_MAX_ZOOM) {
    cy.zoom(FIT_MAX_ZOOM);
    cy.center();
  }
}

/** Zoom in, zoom out and fit, for screens without a wheel; pinching works as well. */
export function zoomControls(cy: cytoscape.Core): HTMLElement {
  const zoomBy = (factor: number) => {
    const { w, h: height } = { w: cy.width(), h: cy.height() };
    cy.zoom({ level: cy.zoom() * factor, renderedPosition: { x: w / 2, y: height / 2 } });
  };
  const button = (label: string, text: string, run: () => void) =>
    h('button', { type: 'button', 'aria-label': label, title: label, onclick: run }, text);
  return h(
    'div',
    { class: 'zoom-controls', role: 'group', 'aria-label': 'Zoom' },
    button('Zoom in', '+', () => zoomBy(1.3)),
    button('Zoom out', '−', () => zoomBy(1 / 1.3)),
    button('Fit the graph', 'Fit', () => fitGraph(cy)),
  );
}

export function draw(container: HTMLElement, view: GraphViewResult, onSelect: (id: string) => void): cytoscape.Core {
  const cy = cytoscape({
    container,
    elements: [
      ...view.nodes.map((n) => ({
        data: {
          id: n.entry.id,
          label: shorten(n.entry.content, LABEL_CHARS),
          color: KIND_COLORS[n.entry.kind],
          hop: n.hop,
          score: n.score,
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
    style: graphStyle(matchMedia('(prefers-color-scheme: dark)').matches),
    wheelSensitivity: 0.3,
    minZoom: 0.2,
    maxZoom: 3,
  });
  cy.on('tap', 'node', (event) => onSelect(event.target.id()));
  cy.on('mouseover', 'node', (event) => event.target.addClass('hover'));
  cy.on('mouseout', 'node', (event) => event.target.removeClass('hover'));
  // A dragged node may now sit on another's label, or free room for one.
  cy.on('dragfree', 'node', () => placeLabels(cy));
  // Rings by hop: the seeds in the middle, each hop further out, so "how far" reads at a glance.
  const layout = cy.layout({
    name: 'concentric',
    concentric: (node) => 10 - Number(node.data('hop')),
    levelWidth: () => 1,
    minNodeSpacing: 60,
    avoidOverlap: true,
    animate: false,
    fit: false,
  });
  layout.one('layoutstop', () => {
    placeLabels(cy);
    fitGraph(cy);
  });
  layout.run();
  return cy;
}
