import type cytoscape from 'cytoscape';
import { href, type View } from '../app.ts';
import { EntryDetailDocument } from '../documents.ts';
import { h, replace } from '../dom.ts';
import type { EntryDetail } from '../model.ts';
import { problemBox } from '../widgets.ts';
import {
  appendForm,
  type EntryPage,
  forgetButton,
  linkForm,
  messageArea,
  statusForm,
  unlinkButton,
  updateForm,
} from './entry-actions.ts';
import { conflictsSection, connectionsSection, entryFacts, entryHeader, revisionsSection } from './entry-sections.ts';
import { destroyGraph, draw } from './graph-canvas.ts';

/** The entry and its direct connections as a small graph; a click on a neighbour opens it. */
function localGraph(entry: EntryDetail): { element: HTMLElement; mount(): cytoscape.Core | null } {
  const canvas = h('div', {
    class: 'local-graph',
    id: 'local-graph',
    role: 'img',
    'aria-label': `The entry and its ${entry.connections.length} connections, listed above.`,
  });
  const element = h(
    'section',
    { class: 'card', 'aria-labelledby': 'local-graph-title' },
    h('h2', { id: 'local-graph-title' }, 'Neighbourhood'),
    canvas,
  );
  const mount = () => {
    if (!entry.connections.length) {
      canvas.replaceWith(h('p', { class: 'muted' }, 'No edges yet: link this entry to see its neighbourhood.'));
      return null;
    }
    const nodes = [
      { hop: 0, score: 1, entry },
      ...entry.connections.map((c) => ({ hop: 1, score: c.edge.weight, entry: c.entry })),
    ];
    return draw(
      canvas,
      { nodes, edges: entry.connections.map((c) => c.edge) },
      {
        onSelect: (id) => {
          if (id !== entry.id) location.hash = href('entry', id);
        },
      },
    );
  };
  return { element, mount };
}

/** The entry page's parts built once, and how to draw an entry with them. */
function entryLayout(page: EntryPage, signal: AbortSignal) {
  const update = updateForm(page);
  const status = statusForm(page);
  const link = linkForm(page, signal);
  const forgetMessage = messageArea('forget-message');
  const forget = forgetButton(page, forgetMessage);
  const append = appendForm(page);
  const unlinkMessage = messageArea('connections-message');
  let local: cytoscape.Core | null = null;
  let graph: ReturnType<typeof localGraph> | null = null;
  const render = (entry: EntryDetail): HTMLElement[] => {
    status.show(entry);
    update.show(entry);
    link.show(entry);
    graph = localGraph(entry);
    return [
      ...entryHeader(entry),
      ...entryFacts(entry),
      ...[conflictsSection(entry)].filter((s) => s !== null),
      revisionsSection(entry),
      connectionsSection(entry, unlinkMessage, (c) => unlinkButton(page, c, unlinkMessage)),
      graph.element,
      h(
        'section',
        { class: 'card actions-card', 'aria-label': 'Status and forget' },
        status.element,
        h('div', { class: 'forget-box' }, forget, forgetMessage),
      ),
      h('div', { class: 'two-col' }, append, update.element),
      link.element,
    ];
  };
  /** Draws the local graph once its section is on the page (cytoscape measures its container). */
  const mounted = () => {
    if (local) destroyGraph(local);
    local = graph?.mount() ?? null;
  };
  const unmount = () => {
    if (local) destroyGraph(local);
    local = null;
  };
  return { render, mounted, unmount, suggest: link.suggest };
}

/**
 * One entry: content, classification, revision history and connections, with its write actions.
 * The page shows the entry as the normalized cache has it, and follows the cache: a write's result
 * lands there (and what it made stale is read again by the cache), and so do the entries that live
 * events carry. What the cache cannot know, a refused write or another writer's change to this
 * entry's edges or history, is read from the server into the cache. Each form follows (see
 * updateForm for how a rewrite in progress is kept safe).
 */
export const entryView: View = async (app, route, root, signal) => {
  const id = route.id ?? '';
  const body = h('div', { id: 'entry-body' }, h('p', { class: 'muted' }, 'Loading…'));
  let current: EntryDetail | null = null;
  let forgotten = false;

  const page: EntryPage = {
    app,
    id,
    root,
    act: async (what, run, message, explain) => {
      replace(message);
      message.setAttribute('aria-busy', 'true');
      try {
        await run();
        replace(message, h('p', { class: 'ok' }, what));
        return true;
      } catch (error) {
        if (!explain?.(error)) page.fail(error, message);
        // Refused: show what the server has now, since a refusal often means it changed.
        await refresh();
        return false;
      } finally {
        message.removeAttribute('aria-busy');
      }
    },
    fail: (error, message, words) => replace(message, problemBox(app, error, 'write', words)),
  };
  const layout = entryLayout(page, signal);

  let shown: string | null = null;
  const show = (entry: EntryDetail | null) => {
    if (signal.aborted || forgotten) return;
    // The cache answers again whenever something the page reads is written, often with the same
    // data (an event that carried the entry as it is): redrawing then would only take the user's focus.
    const drawn = JSON.stringify(entry);
    if (drawn === shown) return;
    shown = drawn;
    current = entry;
    if (entry) {
      app.live.remember(entry.id, entry.content);
      // The forms are built once and put back in place, so what the user was typing in keeps its focus.
      const focused = body.contains(document.activeElement) ? (document.activeElement as HTMLElement) : null;
      replace(body, layout.render(entry));
      if (focused && body.contains(focused)) focused.focus({ preventScroll: true });
      layout.mounted();
    } else replace(body, h('h1', null, 'Not found'), h('p', null, 'No entry with this id in this workspace.'));
  };
  const showProblem = (error: unknown) => {
    if (!signal.aborted) replace(body, problemBox(app, error));
  };
  /** Reads the entry from the server; the watch below draws it once it is in the cache. */
  const refresh = () => app.gql.fresh(EntryDetailDocument, { id }).then(() => {}, showProblem);

  signal.addEventListener('abort', () => layout.unmount());
  replace(root, body);
  await new Promise<void>((shown) => {
    app.gql.watch(
      EntryDetailDocument,
      { id },
      ({ entry }) => {
        show(entry);
        shown();
      },
      (error) => {
        showProblem(error);
        shown();
      },
      signal,
      // What the cache has shows at once; the server's answer follows, for what changed while the page
      // was closed that no event carried (another writer's edges, the history).
      'cache-and-network',
    );
  });
  layout.suggest();

  // Someone else (an agent, another tab) changed this entry or its edges: show it.
  app.live.onEvent((event) => {
    if (!current) return;
    const neighbour = current.connections.some((c) => c.entry.id === event.entryId);
    const touches = event.entryId === id || neighbour || event.edge?.src === id || event.edge?.dst === id;
    if (!touches) return;
    if (event.type === 'FORGOTTEN' && event.entryId === id) {
      forgotten = true;
      replace(body, h('h1', null, 'Forgotten'), h('p', null, 'This entry was just forgotten.'));
    } else void refresh();
  }, signal);
};
