import { href, type View } from '../app.ts';
import { badge, h, replace, time } from '../dom.ts';
import type { LiveEvents } from '../live.ts';
import type { MemoryEvent } from '../model.ts';
import { edgeChip, entryLink, tagList } from '../widgets.ts';

/** What an event did, in words, with links to what it touched. */
function describe(event: MemoryEvent, live: LiveEvents): HTMLElement {
  const { entry, edge } = event;
  if (edge) {
    return h(
      'p',
      { class: 'edge-line' },
      entryLink(edge.src, live.contentOf(edge.src), 60),
      ' ',
      edgeChip(edge.type),
      ' ',
      entryLink(edge.dst, live.contentOf(edge.dst), 60),
      event.type === 'LINKED' ? h('span', { class: 'muted' }, ` weight ${edge.weight}`) : null,
    );
  }
  if (entry) {
    return h(
      'div',
      null,
      h('p', { class: 'content clamp' }, entry.content),
      h('div', { class: 'meta-line' }, badge(entry.kind, 'kind'), badge(entry.status, 'status'), tagList(entry.tags)),
    );
  }
  if (event.type === 'STALENESS_PASS') return h('p', { class: 'muted' }, 'The staleness pass ran.');
  const id = event.entryId;
  const known = id ? live.contentOf(id) : undefined;
  return h('p', { class: 'muted' }, id ? [`Entry ${known ? `“${known.slice(0, 120)}”` : id} is gone.`] : '—');
}

function eventItem(event: MemoryEvent, live: LiveEvents, fresh: boolean): HTMLLIElement {
  const open = event.entry ? h('a', { href: href('entry', event.entry.id), class: 'open' }, 'Open entry') : null;
  return h(
    'li',
    { class: `event${fresh ? ' fresh' : ''}`, 'data-seq': event.seq, 'data-type': event.type },
    h(
      'div',
      { class: 'event-head' },
      badge(event.type, 'event-type'),
      event.outcome ? badge(event.outcome, 'outcome') : null,
      h('span', { class: 'seq' }, `#${event.seq}`),
      time(event.at),
      open,
    ),
    describe(event, live),
  );
}

/** The landing view: the workspace's events as they are committed, newest first. */
export const feedView: View = (app, _route, root, signal) => {
  const list = h('ol', { class: 'feed', id: 'feed-list', 'aria-label': 'Events, newest first' });
  const empty = h('p', { class: 'muted empty' }, 'No events yet. Capture something and it shows up here at once.');
  const count = h('span', { class: 'muted', id: 'feed-count' });
  const setCount = () => {
    count.textContent = `${app.live.events.length} event${app.live.events.length === 1 ? '' : 's'} shown`;
    empty.hidden = app.live.events.length > 0;
  };
  for (const event of app.live.events) list.append(eventItem(event, app.live, false));
  setCount();
  app.live.onEvent((event) => {
    list.prepend(eventItem(event, app.live, !app.live.isBacklog(event)));
    while (list.children.length > app.live.events.length) list.lastElementChild?.remove();
    setCount();
  }, signal);

  replace(
    root,
    h(
      'div',
      { class: 'view-head' },
      h('h1', null, 'Live feed'),
      h('p', { class: 'muted' }, `Events of workspace “${app.session.workspace}” as they commit. `, count),
    ),
    empty,
    list,
  );
};
