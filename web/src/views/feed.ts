import { type App, href, type View, workspaceName } from '../app.ts';
import { badge, field, h, replace, shorten, time } from '../dom.ts';
import type { LiveEvents } from '../live.ts';
import type { MemoryEvent } from '../model.ts';
import { edgeChip, entryLink, problemBox, tagList } from '../widgets.ts';

/** A link to an entry named by its content; when the feed has not seen it, the name is read from the server. */
function namedLink(id: string, live: LiveEvents): HTMLAnchorElement {
  const known = live.contentOf(id);
  const link = entryLink(id, known, 60);
  if (known === undefined) {
    void live.lookUp(id).then((content) => {
      if (content !== undefined) link.replaceWith(entryLink(id, content, 60));
      else link.replaceWith(h('span', { class: 'muted', title: id }, 'an entry since forgotten'));
    });
  }
  return link;
}

/** What an event did, in words, with links to what it touched. */
function describe(event: MemoryEvent, live: LiveEvents): HTMLElement {
  const { entry, edge } = event;
  if (edge) {
    return h(
      'p',
      { class: 'edge-line' },
      namedLink(edge.src, live),
      ' ',
      edgeChip(edge.type),
      ' ',
      namedLink(edge.dst, live),
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
  if (event.type === 'IMPORTED') return h('p', { class: 'muted' }, 'An import brought entries in; reload to see them.');
  const id = event.entryId;
  if (!id) return h('p', { class: 'muted' }, '—');
  // The server keeps no text of a forgotten entry: say what this page had seen of it, or that it is gone.
  const known = live.contentOf(id);
  return h(
    'p',
    { class: 'forgotten-line', title: id },
    known
      ? ['Forgotten: ', h('q', { class: 'content' }, shorten(known, 160))]
      : 'An entry was forgotten; its text is gone (this page had not seen it).',
  );
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

/**
 * What stands where events would: why there are none. Never a bare "no events" while the server
 * refuses the dashboard or has not answered yet.
 */
function emptyState(app: App): HTMLElement | null {
  if (app.live.problem) return problemBox(app, app.live.problem, 'read');
  if (app.live.events.length > 0) return null;
  if (app.live.state !== 'live') return h('p', { class: 'muted' }, 'Waiting for the server…');
  return h('p', { class: 'muted' }, 'No events yet. Capture something and it shows up here at once.');
}

/** The landing view: the workspace's events as they are committed, newest first. */
/** What the feed's filter offers: every event type, in words. */
const SHOW: Record<string, string> = {
  '': 'every event',
  CAPTURED: 'captures',
  APPENDED: 'appends',
  UPDATED: 'rewrites',
  STATUS_CHANGED: 'status changes',
  LINKED: 'links',
  UNLINKED: 'unlinks',
  FORGOTTEN: 'forgets',
  STALENESS_PASS: 'staleness passes',
};

export const feedView: View = (app, _route, root, signal) => {
  const list = h('ol', { class: 'feed', id: 'feed-list', 'aria-label': 'Events, newest first' });
  const show = h(
    'select',
    { name: 'show' },
    Object.entries(SHOW).map(([value, text]) => h('option', { value }, text)),
  );
  const applyFilter = (li: Element) => {
    (li as HTMLElement).hidden = Boolean(show.value) && li.getAttribute('data-type') !== show.value;
  };
  show.addEventListener('change', () => {
    for (const li of list.children) applyFilter(li);
  });
  const older = h('button', { type: 'button', id: 'feed-older' }, 'Load older events');
  const olderNote = h('span', { class: 'muted', id: 'feed-older-note', 'aria-live': 'polite' });
  const showOlderState = () => {
    const first = app.live.oldestSeq();
    older.disabled = first === null || first <= 1;
    olderNote.textContent = first !== null && first <= 1 ? 'This is the first event of the workspace.' : '';
  };
  older.addEventListener('click', async () => {
    older.disabled = true;
    olderNote.textContent = 'Loading…';
    try {
      const added = await app.live.loadOlder();
      if (signal.aborted) return;
      for (const event of added) {
        const li = eventItem(event, app.live, false);
        applyFilter(li);
        list.append(li);
      }
      refresh();
      showOlderState();
    } catch (error) {
      older.disabled = false;
      olderNote.textContent = error instanceof Error ? error.message : String(error);
    }
  });
  const empty = h('div', { class: 'empty', id: 'feed-empty' });
  const count = h('span', { class: 'muted', id: 'feed-count' });
  const name = h('strong', { id: 'feed-workspace' });
  const refresh = () => {
    count.textContent = `${app.live.events.length} event${app.live.events.length === 1 ? '' : 's'} shown`;
    name.textContent = workspaceName(app) ?? '…';
    replace(empty, emptyState(app));
  };
  for (const event of app.live.events) list.append(eventItem(event, app.live, false));
  refresh();
  showOlderState();
  app.live.onState(refresh, signal);
  app.live.onEvent((event) => {
    const li = eventItem(event, app.live, !app.live.isBacklog(event));
    applyFilter(li);
    list.prepend(li);
    showOlderState();
    while (list.children.length > app.live.events.length) list.lastElementChild?.remove();
    refresh();
  }, signal);

  replace(
    root,
    h(
      'div',
      { class: 'view-head' },
      h('h1', null, 'Live feed'),
      h('p', { class: 'muted' }, 'Events of workspace ', name, ' as they commit. ', count),
    ),
    h('div', { class: 'feed-tools' }, field('Show', show)),
    empty,
    list,
    h('p', { class: 'feed-older' }, older, ' ', olderNote),
  );
};
