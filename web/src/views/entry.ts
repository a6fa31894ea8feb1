import { EDGE_TYPES, ENTRY_STATUSES } from '../../../src/contract/enums.ts';
import { href, type View } from '../app.ts';
import { confirmAction } from '../confirm.ts';
import { badge, errorBox, field, h, replace, select, time } from '../dom.ts';
import {
  AppendDocument,
  type EdgeType,
  EntryDetailDocument,
  type EntryStatus,
  ForgetDocument,
  LinkDocument,
  RecentEntriesDocument,
  SetStatusDocument,
  UnlinkDocument,
  UpdateDocument,
} from '../generated/graphql.ts';
import type { EntryDetail } from '../model.ts';
import { edgeChip, entryBadges, entryLink, num, tagList } from '../widgets.ts';

const ARROWS = { OUT: '→', IN: '←', BOTH: '↔' } as const;

function metaList(entry: EntryDetail): HTMLDListElement {
  const rows: [string, Node | string][] = [
    ['Kind', badge(entry.kind, 'kind')],
    ['Status', badge(entry.status, 'status')],
    ['Freshness', badge(entry.freshness, 'freshness')],
    ['Volatility', entry.volatility],
    ['Importance', num(entry.importance, 2)],
    ['Claim', entry.claimTag],
    ['Evidence', entry.evidenceRef ?? '—'],
    ['Source', entry.source ?? '—'],
    ['Recalled', `${entry.recallCount}×`],
    ['Observed', time(entry.observedAt)],
    ['Created', time(entry.createdAt)],
    ['Updated', time(entry.updatedAt)],
    ['Id', h('code', null, entry.id)],
    ['Content hash', h('code', { class: 'hash' }, entry.contentHash)],
  ];
  return h(
    'dl',
    { class: 'meta' },
    rows.map(([k, v]) => h('div', null, h('dt', null, k), h('dd', null, v))),
  );
}

/** One entry: content, classification, revision history and connections, with its write actions. */
export const entryView: View = async (app, route, root, signal) => {
  const id = route.id ?? '';
  const status = h('p', { class: 'status-line', role: 'status', id: 'entry-status' });
  const say = (text: string) => {
    status.textContent = text;
  };
  const body = h('div', { id: 'entry-body' }, h('p', { class: 'muted' }, 'Loading…'));
  let current: EntryDetail | null = null;

  /** Runs a write, then shows what happened; errors land in the status line. */
  const act = async (what: string, run: () => Promise<unknown>) => {
    try {
      await run();
      say(what);
      await load();
    } catch (error) {
      replace(status, errorBox(error));
    }
  };

  // --- forms (built once, so a live refresh never wipes what the user is typing) ---
  const addition = h('textarea', { name: 'addition', rows: 3, required: true });
  const appendForm = h(
    'form',
    {
      class: 'card',
      id: 'append-form',
      onsubmit: (e: SubmitEvent) => {
        e.preventDefault();
        void act('Appended.', async () => {
          await app.gql(AppendDocument, { input: { id, addition: addition.value } });
          addition.value = '';
        });
      },
    },
    h('h2', null, 'Append'),
    field('Text to add', addition, 'Added after a blank line; the old content goes to the history.'),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Append')),
  );

  const replacement = h('textarea', { name: 'content', rows: 4, required: true });
  const updateForm = h(
    'form',
    {
      class: 'card',
      id: 'update-form',
      onsubmit: (e: SubmitEvent) => {
        e.preventDefault();
        void act('Updated.', () => app.gql(UpdateDocument, { input: { id, content: replacement.value } }));
      },
    },
    h('h2', null, 'Rewrite'),
    field('New content', replacement),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Replace content')),
  );

  const statusSelect = select('status', ENTRY_STATUSES);
  const statusForm = h(
    'form',
    {
      class: 'inline-form',
      onsubmit: (e: SubmitEvent) => {
        e.preventDefault();
        void act(`Status set to ${statusSelect.value}.`, () =>
          app.gql(SetStatusDocument, { input: { id, status: statusSelect.value as EntryStatus } }),
        );
      },
    },
    field('Status', statusSelect),
    h('button', { type: 'submit' }, 'Set status'),
  );

  const forgetButton = h(
    'button',
    {
      type: 'button',
      class: 'danger',
      onclick: async () => {
        const ok = await confirmAction(
          'Forget this entry?',
          'It is removed with its tags, history and edges. This cannot be undone.',
          'Forget',
        );
        if (!ok) return;
        try {
          await app.gql(ForgetDocument, { input: { id } });
          replace(
            root,
            h('h1', null, 'Forgotten'),
            h('p', null, 'The entry is gone. ', h('a', { href: '#/feed' }, 'Back to the feed')),
          );
        } catch (error) {
          replace(status, errorBox(error));
        }
      },
    },
    'Forget…',
  );

  const other = h('input', {
    name: 'other',
    required: true,
    list: 'link-candidates',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  const candidates = h('datalist', { id: 'link-candidates' });
  const linkType = select('type', EDGE_TYPES, 'RELATES_TO');
  const linkDirection = select('direction', ['this → other', 'other → this'], 'this → other');
  const weight = h('input', { name: 'weight', type: 'number', min: 0.05, max: 1, step: 0.05, value: '1' });
  const linkForm = h(
    'form',
    {
      class: 'card form-grid',
      id: 'link-form',
      onsubmit: (e: SubmitEvent) => {
        e.preventDefault();
        const outward = linkDirection.value.startsWith('this');
        const target = other.value.trim();
        void act(`Linked ${linkType.value}.`, async () => {
          await app.gql(LinkDocument, {
            input: {
              src: outward ? id : target,
              dst: outward ? target : id,
              type: linkType.value as EdgeType,
              weight: Number(weight.value),
            },
          });
          other.value = '';
        });
      },
    },
    h('h2', { class: 'wide' }, 'Link'),
    h('div', { class: 'wide' }, field('Other entry id', other, 'Pick a recent entry or paste an id.'), candidates),
    field('Edge type', linkType),
    field('Direction', linkDirection),
    field('Weight (0–1]', weight),
    h('div', { class: 'actions wide' }, h('button', { type: 'submit', class: 'primary' }, 'Link')),
  );

  const render = (entry: EntryDetail) => {
    statusSelect.value = entry.status;
    if (!replacement.value) replacement.value = entry.content;
    replace(
      body,
      h(
        'div',
        { class: 'view-head' },
        h('h1', null, 'Entry'),
        h('p', { class: 'badges-line' }, entryBadges(entry), tagList(entry.tags)),
      ),
      h('article', { class: 'card content-card' }, h('p', { class: 'content', id: 'entry-content' }, entry.content)),
      metaList(entry),
      h(
        'p',
        { class: 'links-line' },
        h('a', { href: href('graph', undefined, { ids: entry.id, hops: 2 }) }, 'Show in graph'),
      ),
      h(
        'section',
        { 'aria-labelledby': 'revisions-title', class: 'card' },
        h(
          'h2',
          { id: 'revisions-title' },
          `History (${entry.revisions.length} revision${entry.revisions.length === 1 ? '' : 's'})`,
        ),
        entry.revisions.length
          ? h(
              'ol',
              { class: 'revisions', id: 'revisions' },
              entry.revisions.map((r) =>
                h(
                  'li',
                  { 'data-op': r.op },
                  h('div', { class: 'meta-line' }, badge(r.op, 'op'), ' content before this change, ', time(r.at)),
                  h('p', { class: 'content' }, r.content),
                ),
              ),
              h(
                'li',
                { class: 'now' },
                h('div', { class: 'meta-line' }, badge('NOW', 'op'), ' the current content, above'),
              ),
            )
          : h('p', { class: 'muted' }, 'Never appended to or rewritten.'),
      ),
      h(
        'section',
        { 'aria-labelledby': 'connections-title', class: 'card' },
        h('h2', { id: 'connections-title' }, `Connections (${entry.connections.length})`),
        entry.connections.length
          ? h(
              'ul',
              { class: 'connections', id: 'connections' },
              entry.connections.map((c) =>
                h(
                  'li',
                  null,
                  h('span', { class: 'arrow', 'aria-label': c.direction.toLowerCase() }, ARROWS[c.direction]),
                  edgeChip(c.edge.type),
                  entryLink(c.entry.id, c.entry.content, 70),
                  h('span', { class: 'muted' }, ` ${num(c.edge.weight, 2)} · ${c.edge.provenance.toLowerCase()}`),
                  h(
                    'button',
                    {
                      type: 'button',
                      class: 'small',
                      'aria-label': `Unlink ${c.edge.type} with ${c.entry.content.slice(0, 40)}`,
                      onclick: () =>
                        act(`Unlinked ${c.edge.type}.`, () =>
                          app.gql(UnlinkDocument, { input: { src: c.edge.src, dst: c.edge.dst, type: c.edge.type } }),
                        ),
                    },
                    'Unlink',
                  ),
                ),
              ),
            )
          : h('p', { class: 'muted' }, 'No edges yet.'),
      ),
      h('section', { class: 'card actions-card', 'aria-label': 'Status and forget' }, statusForm, forgetButton),
      h('div', { class: 'two-col' }, appendForm, updateForm),
      linkForm,
    );
  };

  let loading: Promise<void> | null = null;
  async function load(): Promise<void> {
    loading ??= (async () => {
      try {
        const { entry } = await app.gql(EntryDetailDocument, { id });
        if (signal.aborted) return;
        current = entry;
        if (entry) render(entry);
        else replace(body, h('h1', null, 'Not found'), h('p', null, 'No entry with this id in this workspace.'));
      } catch (error) {
        if (!signal.aborted) replace(body, errorBox(error));
      } finally {
        loading = null;
      }
    })();
    return loading;
  }

  replace(root, status, body);
  await load();
  app
    .gql(RecentEntriesDocument, { n: 50 })
    .then(({ recent }) =>
      replace(
        candidates,
        recent.filter((e) => e.id !== id).map((e) => h('option', { value: e.id }, e.content.slice(0, 80))),
      ),
    )
    .catch(() => {});

  // Someone else (an agent, another tab) changed this entry or its edges: show it.
  app.live.onEvent((event) => {
    const touches = event.entryId === id || event.edge?.src === id || event.edge?.dst === id;
    if (!touches || !current) return;
    if (event.type === 'FORGOTTEN')
      replace(body, h('h1', null, 'Forgotten'), h('p', null, 'This entry was just forgotten.'));
    else void load();
  }, signal);
};
