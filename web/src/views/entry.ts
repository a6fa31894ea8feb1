import type { View } from '../app.ts';
import { h, replace } from '../dom.ts';
import { EntryDetailDocument } from '../generated/graphql.ts';
import type { EntryDetail } from '../model.ts';
import { problemBox } from '../widgets.ts';
import {
  appendForm,
  type EntryPage,
  forgetButton,
  linkForm,
  statusForm,
  unlinkButton,
  updateForm,
} from './entry-actions.ts';
import { connectionsSection, entryFacts, entryHeader, revisionsSection } from './entry-sections.ts';

/** The entry page's parts built once, and how to draw an entry with them. */
function entryLayout(page: EntryPage) {
  const update = updateForm(page);
  const status = statusForm(page);
  const link = linkForm(page);
  const forget = forgetButton(page);
  const append = appendForm(page);
  const render = (entry: EntryDetail): HTMLElement[] => {
    status.show(entry);
    update.show(entry);
    return [
      ...entryHeader(entry),
      ...entryFacts(entry),
      revisionsSection(entry),
      connectionsSection(entry, (c) => unlinkButton(page, c)),
      h('section', { class: 'card actions-card', 'aria-label': 'Status and forget' }, status.element, forget),
      h('div', { class: 'two-col' }, append, update.element),
      link.element,
    ];
  };
  return { render, suggest: link.suggest };
}

/** One entry: content, classification, revision history and connections, with its write actions. */
export const entryView: View = async (app, route, root, signal) => {
  const id = route.id ?? '';
  const status = h('p', { class: 'status-line', role: 'status', id: 'entry-status' });
  const body = h('div', { id: 'entry-body' }, h('p', { class: 'muted' }, 'Loading…'));
  let current: EntryDetail | null = null;
  let loading: Promise<void> | null = null;

  const page: EntryPage = {
    app,
    id,
    root,
    act: async (what, run) => {
      try {
        await run();
        status.textContent = what;
        await load();
      } catch (error) {
        page.fail(error);
      }
    },
    fail: (error) => replace(status, problemBox(app, error, 'write')),
  };
  const layout = entryLayout(page);

  async function load(): Promise<void> {
    loading ??= (async () => {
      try {
        const { entry } = await app.gql(EntryDetailDocument, { id });
        if (signal.aborted) return;
        current = entry;
        if (entry) replace(body, layout.render(entry));
        else replace(body, h('h1', null, 'Not found'), h('p', null, 'No entry with this id in this workspace.'));
      } catch (error) {
        if (!signal.aborted) replace(body, problemBox(app, error));
      } finally {
        loading = null;
      }
    })();
    return loading;
  }

  replace(root, status, body);
  await load();
  layout.suggest();

  // Someone else (an agent, another tab) changed this entry or its edges: show it.
  app.live.onEvent((event) => {
    const touches = event.entryId === id || event.edge?.src === id || event.edge?.dst === id;
    if (!touches || !current) return;
    if (event.type === 'FORGOTTEN')
      replace(body, h('h1', null, 'Forgotten'), h('p', null, 'This entry was just forgotten.'));
    else void load();
  }, signal);
};
