import cytoscape from 'cytoscape';
import { EDGE_TYPES, ENTRY_KINDS } from '../../../src/contract/enums.ts';
import type { EdgeType, EntryKind } from '../documents.ts';
import { h, shorten } from '../dom.ts';
import { EDGE_COLORS, KIND_COLORS } from '../model.ts';

declare global {
  interface Window {
    /** The graph's cytoscape instance, for tests and for poking at it from the console. */
    __cy?: cytoscape.Core;
  }
}

/** Node labels stay short; the full text is in the side panel and the list below. */
const LABEL_CHARS = 28;
/** Labels are drawn this many pixels high on screen at every zoom. */
const LABEL_PX = 13;
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

/** A node as the canvas draws it: an entry with how far it is from a seed and its score. */
export interface GraphNode {
  hop: number;
  score: number;
  entry: { id: string; content: string; kind: EntryKind; status: string; freshness?: string };
}
export interface GraphEdge {
  src: string;
  dst: string;
  type: EdgeType;
  weight: number;
}
/** What the canvas draws: graphView's answer, or an entry with its connections. */
export interface GraphData {
  nodes: readonly GraphNode[];
  edges: readonly GraphEdge[];
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
        'font-size': LABEL_PX,
        'text-wrap': 'ellipsis',
        'text-max-width': '140px',
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
      selector: 'node.hover, node:selected, node.found',
      style: { label: 'data(label)', 'z-index': 10, 'text-background-opacity': 1 },
    },
    { selector: 'node:selected', style: { 'overlay-opacity': 0.2, 'overlay-color': '#f59e0b' } },
    { selector: 'node.found', style: { 'border-width': 4, 'border-color': '#f59e0b' } },
    { selector: 'node.faded', style: { opacity: 0.25 } },
    { selector: '.filtered', style: { display: 'none' } },
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
 * Keeps labels the same size on screen whatever the zoom: zoomed out they stay readable (and
 * fewer fit), zoomed in they take less room between the nodes, so more of them are drawn.
 */
function scaleLabels(cy: cytoscape.Core): void {
  if (cy.destroyed()) return;
  const z = cy.zoom();
  cy.style()
    .selector('node')
    .style({ 'font-size': LABEL_PX / z, 'text-max-width': `${140 / z}px`, 'text-margin-y': 4 / z })
    .update();
}

/**
 * Draws as many labels as fit without touching another node or label: seeds first, then by
 * hop and score. The others show on hover, selection or zooming in, so a crowded graph stays readable.
 */
export function placeLabels(cy: cytoscape.Core): void {
  if (cy.destroyed()) return;
  scaleLabels(cy);
  const nodes = cy
    .nodes(':visible')
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

/**
 * Fits the visible nodes into the canvas, by their positions alone: labels keep their screen
 * size at every zoom, so counting them in would make each fit differ from the last.
 */
export function fitGraph(cy: cytoscape.Core): void {
  if (cy.destroyed()) return;
  const visible = cy.nodes(':visible');
  if (!visible.length) return;
  const bb = visible.boundingBox({ includeLabels: false, includeOverlays: false });
  // Room for the labels, which are centred under their nodes and keep their screen size.
  const padX = Math.min(80, cy.width() / 5);
  const padY = 40;
  const width = cy.width();
  const height = cy.height();
  const fit = Math.min((width - 2 * padX) / Math.max(bb.w, 1), (height - 2 * padY) / Math.max(bb.h, 1));
  const zoom = Math.max(cy.minZoom(), Math.min(FIT_MAX_ZOOM, fit));
  cy.viewport({
    zoom,
    pan: { x: width / 2 - zoom * (bb.x1 + bb.w / 2), y: height / 2 - zoom * (bb.y1 + bb.h / 2) },
  });
  placeLabels(cy);
}

/** Zoom in, zoom out, fit and full screen, for screens without a wheel; pinching works as well. */
export function zoomControls(cy: cytoscape.Core, stage: HTMLElement): HTMLElement {
  const zoomBy = (factor: number) => {
    const { w, h: height } = { w: cy.width(), h: cy.height() };
    cy.zoom({ level: cy.zoom() * factor, renderedPosition: { x: w / 2, y: height / 2 } });
  };
  const button = (label: string, text: string, run: () => void) =>
    h('button', { type: 'button', 'aria-label': label, title: label, onclick: run }, text);
  const fullScreen = () => {
    if (document.fullscreenElement) void document.exitFullscreen();
    else void stage.requestFullscreen?.().catch(() => stage.classList.toggle('full'));
  };
  document.addEventListener('fullscreenchange', () => {
    cy.resize();
    fitGraph(cy);
  });
  return h(
    'div',
    { class: 'zoom-controls', role: 'group', 'aria-label': 'Zoom' },
    button('Zoom in', '+', () => zoomBy(1.3)),
    button('Zoom out', '−', () => zoomBy(1 / 1.3)),
    button('Fit the graph', 'Fit', () => fitGraph(cy)),
    button('Full screen', 'Full', fullScreen),
  );
}

function elementsOf(data: GraphData, cy: cytoscape.Core | null): cytoscape.ElementDefinition[] {
  const has = (id: string) => (cy ? cy.getElementById(id).nonempty() : false);
  const nodeIds = new Set(data.nodes.map((n) => n.entry.id));
  return [
    ...data.nodes
      .filter((n) => !has(n.entry.id))
      .map((n) => ({
        group: 'nodes' as const,
        data: {
          id: n.entry.id,
          label: shorten(n.entry.content, LABEL_CHARS),
          content: n.entry.content.toLowerCase(),
          kind: n.entry.kind,
          color: KIND_COLORS[n.entry.kind],
          hop: n.hop,
          score: n.score,
        },
        classes: n.hop === 0 ? 'seed' : '',
      })),
    ...data.edges
      .filter((e) => !has(`${e.src}|${e.type}|${e.dst}`) && (nodeIds.has(e.src) || has(e.src)))
      .filter((e) => nodeIds.has(e.dst) || has(e.dst))
      .map((e) => ({
        group: 'edges' as const,
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
  ];
}

/**
 * Force-directed (cytoscape's cose): linked entries pull together, all nodes push apart, so
 * seeds with their own neighbourhoods end up apart. With `keep`, nodes already placed start
 * where they are and the view is not refitted: expanding a node does not throw the view away.
 */
export function layOut(cy: cytoscape.Core, keep: boolean): void {
  const layout = cy.elements(':visible').layout({
    name: 'cose',
    animate: false,
    randomize: !keep,
    fit: !keep,
    padding: 30,
    nodeRepulsion: () => 400_000,
    idealEdgeLength: () => 90,
    nodeOverlap: 20,
    componentSpacing: 120,
    numIter: 1000,
  } as cytoscape.LayoutOptions);
  layout.one('layoutstop', () => {
    if (!keep) fitGraph(cy);
    placeLabels(cy);
    // How many layouts have settled: what a test waits for before it reads positions.
    cy.scratch('settled', Number(cy.scratch('settled') ?? 0) + 1);
  });
  (cy.scratch('layout') as cytoscape.Layouts | undefined)?.stop();
  cy.scratch('layout', layout);
  layout.run();
}

/** Stops what is still running on the graph (a layout, a pending relabel), then destroys it. */
export function destroyGraph(cy: cytoscape.Core): void {
  if (cy.destroyed()) return;
  (cy.scratch('layout') as cytoscape.Layouts | undefined)?.stop();
  clearTimeout(cy.scratch('relabel') as number | undefined);
  cy.destroy();
}

/**
 * Adds what `data` has that the canvas has not drawn yet, new nodes placed around `around`
 * (the node that was expanded) before the layout settles them. Returns how many nodes were added.
 */
export function merge(cy: cytoscape.Core, data: GraphData, around?: string): number {
  const added = cy.add(elementsOf(data, cy));
  const centre = around ? cy.getElementById(around) : null;
  if (centre?.nonempty()) {
    const { x, y } = centre.position();
    added.nodes().forEach((node, i, all) => {
      const angle = (2 * Math.PI * i) / Math.max(1, all.length);
      node.position({ x: x + 80 * Math.cos(angle), y: y + 80 * Math.sin(angle) });
    });
  }
  return added.nodes().length;
}

export interface DrawOptions {
  onSelect(id: string): void;
  /** Double-click (or double-tap) on a node. */
  onExpand?(id: string): void;
}

export function draw(container: HTMLElement, data: GraphData, options: DrawOptions): cytoscape.Core {
  const cy = cytoscape({
    container,
    elements: elementsOf(data, null),
    style: graphStyle(matchMedia('(prefers-color-scheme: dark)').matches),
    minZoom: 0.2,
    maxZoom: 3,
  });
  cy.on('tap', 'node', (event) => options.onSelect(event.target.id()));
  cy.on('dbltap', 'node', (event) => options.onExpand?.(event.target.id()));
  cy.on('mouseover', 'node', (event) => event.target.addClass('hover'));
  cy.on('mouseout', 'node', (event) => event.target.removeClass('hover'));
  // A dragged node may now sit on another's label, or free room for one; zooming in frees room too.
  cy.on('dragfree', 'node', () => placeLabels(cy));
  cy.on('zoom', () => {
    clearTimeout(cy.scratch('relabel') as number | undefined);
    cy.scratch(
      'relabel',
      window.setTimeout(() => placeLabels(cy), 150),
    );
  });
  layOut(cy, false);
  return cy;
}
