/** Every entry of the workspace as a table: filters, sort, paging by cursor, bulk status changes. */

import { CLAIM_TAGS, ENTRY_KINDS, ENTRY_STATUSES } from '../../../src/contract/enums.ts';
import { href, type View } from '../app.ts';
import {
  type ClaimTag,
  EntriesDocument,
  type EntriesQueryVariables,
  type EntryKind,
  type EntryStatus,
  SetStatusDocument,
} from '../documents.ts';
import { field, h, replace, select, time } from '../dom.ts';
import { entryBadges, entryLink, num, problemBox, tagList } from '../widgets.ts';

const SORTS: Record<string, { field: 'CREATED_AT' | 'OBSERVED_AT' | 'UPDATED_AT'; direction: 'ASC' | 'DESC' }> = {
  'Newest first': { field: 'CREATED_AT', direction: 'DESC' },
  'Oldest first': { field: 'CREATED_AT', direction: 'ASC' },
  'Recently changed': { field: 'UPDATED_AT', direction: 'DESC' },
  'Observed, newest first': { field: 'OBSERVED_AT', direction: 'DESC' },
};
const PAGE_SIZES = ['25', '50', '100', '200'];
/** How many status changes run at once. */
const BULK_PARALLEL = 4;

/** The importance floors the table filters by. */
const IMPORTANCE_FLOORS = ['0.25', '0.5', '0.75', '0.9'];

/** A date input's value (the reader's day) as the instant it starts, or ends with `end`. */
function dayInstant(value: string, end = false): string | undefined {
  if (!value) return undefined;
  const day = new Date(`${value}T00:00:00`);
  if (end) day.setDate(day.getDate() + 1);
  return day.toISOString();
}

export const entriesView: View = (app, route, root, signal) => {
  const p = route.params;
  const kind = select('kind', ENTRY_KINDS, p.get('kind') ?? '', 'any kind');
  const status = select('status', ENTRY_STATUSES, p.get('status') ?? '', 'any status');
  const claim = select('claim', CLAIM_TAGS, p.get('claim') ?? '', 'any claim');
  const importance = select('importance', IMPORTANCE_FLOORS, p.get('importance') ?? '', 'any importance');
  const tag = h('input', { name: 'tag', autocomplete: 'off', value: p.get('tag') ?? '' });
  const since = h('input', { name: 'since', type: 'date', value: p.get('since') ?? '' });
  const until = h('input', { name: 'until', type: 'date', value: p.get('until') ?? '' });
  const sort = select('sort', Object.keys(SORTS), p.get('sort') ?? 'Newest first');
  const size = select('size', PAGE_SIZES, p.get('size') ?? '50');

  const output = h('div', { id: 'entries-output' });
  const summary = h('p', { id: 'entries-summary', 'aria-live': 'polite' });
  const message = h('div', { class: 'form-message', id: 'bulk-message', role: 'status' });
  const bulkStatus = select('bulk-status', ENTRY_STATUSES, 'CANONICAL');
  const bulkButton = h('button', { type: 'submit' }, 'Set status of selected');
  const prev = h('button', { type: 'button', id: 'entries-prev' }, '← Previous page');
  const next = h('button', { type: 'button', id: 'entries-next' }, 'Next page →');
  /** The `after` cursor of each page seen, so Previous goes back the way it came. */
  const cursors: (string | null)[] = [null];
  let page = 0;
  let endCursor: string | null = null;
  let total = 0;
  const chosen = new Set<string>();

  const variables = (): EntriesQueryVariables => {
    const order = SORTS[sort.value] ?? SORTS['Newest first'];
    return {
      first: Number(size.value),
      after: cursors[page] ?? undefined,
      orderBy: order,
      filter: {
        kinds: kind.value ? [kind.value as EntryKind] : undefined,
        statuses: status.value ? [status.value as EntryStatus] : undefined,
        claimTags: claim.value ? [claim.value as ClaimTag] : undefined,
        minImportance: importance.value ? Number(importance.value) : undefined,
        tags: tag.value.trim() ? [tag.value.trim()] : undefined,
        since: dayInstant(since.value),
        until: dayInstant(until.value, true),
      },
    };
  };

  /**
   * Shows the current page. The cache holds the pages of one listing (same filters and order) as one
   * list, so the page is cut from it. A page not seen yet, or the first one again, is read from the
   * server (agents write meanwhile); going back to a page seen comes from the cache.
   */
  const load = async (fromCache = false) => {
    replace(output, h('p', { class: 'muted' }, 'Loading…'));
    try {
      const read = fromCache ? app.gql : app.gql.fresh;
      const { entries } = await read(EntriesDocument, variables());
      if (signal.aborted) return;
      const perPage = Number(size.value);
      const rows = entries.edges.slice(page * perPage, (page + 1) * perPage);
      total = entries.totalCount;
      endCursor = rows.at(-1)?.cursor ?? null;
      next.disabled = !(entries.edges.length > (page + 1) * perPage || entries.pageInfo.hasNextPage);
      prev.disabled = page === 0;
      const first = page * perPage + 1;
      const shown = rows.length;
      summary.textContent = shown
        ? `Entries ${first}–${first + shown - 1} of ${total}.`
        : total
          ? 'No more entries.'
          : 'No entry matches these filters.';
      chosen.clear();
      const all = h('input', {
        type: 'checkbox',
        'aria-label': 'Select every entry on this page',
        onchange: (event: Event) => {
          const on = (event.target as HTMLInputElement).checked;
          for (const box of output.querySelectorAll<HTMLInputElement>('input[data-entry-id]')) {
            box.checked = on;
            if (on) chosen.add(box.dataset.entryId ?? '');
            else chosen.delete(box.dataset.entryId ?? '');
          }
        },
      });
      replace(
        output,
        h(
          'div',
          { class: 'table-wrap' },
          h(
            'table',
            { class: 'entries-table', id: 'entries-table' },
            h(
              'thead',
              null,
              h(
                'tr',
                null,
                h('th', { scope: 'col' }, all),
                h('th', { scope: 'col' }, 'Entry'),
                h('th', { scope: 'col' }, 'Kind · status'),
                h('th', { scope: 'col' }, 'Importance'),
                h('th', { scope: 'col' }, 'Tags'),
                h('th', { scope: 'col' }, 'Created'),
              ),
            ),
            h(
              'tbody',
              null,
              rows.map(({ node }) =>
                h(
                  'tr',
                  { 'data-entry-id': node.id },
                  h(
                    'td',
                    null,
                    h('input', {
                      type: 'checkbox',
                      'data-entry-id': node.id,
                      'aria-label': `Select ${node.content.slice(0, 40)}`,
                      onchange: (event: Event) => {
                        if ((event.target as HTMLInputElement).checked) chosen.add(node.id);
                        else chosen.delete(node.id);
                      },
                    }),
                  ),
                  h('td', { class: 'entry-cell' }, entryLink(node.id, node.content, 90)),
                  h('td', null, entryBadges(node)),
                  h('td', null, num(node.importance, 2)),
                  h('td', null, tagList(node.tags)),
                  h('td', null, time(node.createdAt)),
                ),
              ),
            ),
          ),
        ),
      );
    } catch (error) {
      if (!signal.aborted) replace(output, problemBox(app, error));
    }
  };

  const remember = () => {
    const params: Record<string, string> = {
      kind: kind.value,
      status: status.value,
      claim: claim.value,
      importance: importance.value,
      tag: tag.value.trim(),
      since: since.value,
      until: until.value,
      sort: sort.value === 'Newest first' ? '' : sort.value,
      size: size.value === '50' ? '' : size.value,
    };
    history.replaceState(null, '', href('entries', undefined, params));
  };
  const restart = () => {
    cursors.length = 1;
    page = 0;
    remember();
    void load();
  };
  next.addEventListener('click', () => {
    if (!endCursor) return;
    cursors[page + 1] = endCursor;
    page++;
    void load();
  });
  prev.addEventListener('click', () => {
    if (page === 0) return;
    page--;
    void load(true);
  });

  const bulk = async (event: SubmitEvent) => {
    event.preventDefault();
    const ids = [...chosen];
    if (!ids.length) {
      replace(
        message,
        h('div', { class: 'alert', role: 'alert' }, 'Select entries first (the boxes in the first column).'),
      );
      return;
    }
    bulkButton.disabled = true;
    replace(message, h('p', null, `Setting ${ids.length} entries to ${bulkStatus.value}…`));
    const failed: unknown[] = [];
    for (let i = 0; i < ids.length; i += BULK_PARALLEL) {
      await Promise.all(
        ids
          .slice(i, i + BULK_PARALLEL)
          .map((id) =>
            app
              .gql(SetStatusDocument, { input: { id, status: bulkStatus.value as EntryStatus } })
              .catch((error: unknown) => failed.push(error)),
          ),
      );
    }
    bulkButton.disabled = false;
    const done = ids.length - failed.length;
    replace(
      message,
      failed.length
        ? problemBox(
            app,
            failed[0],
            'write',
            `${done} of ${ids.length} set to ${bulkStatus.value}; ${failed.length} refused:`,
          )
        : h('p', { class: 'ok' }, `${done} ${done === 1 ? 'entry' : 'entries'} set to ${bulkStatus.value}.`),
    );
    await load();
  };

  const filters = h(
    'form',
    {
      class: 'card filter-grid',
      id: 'entries-filters',
      onsubmit: (event: SubmitEvent) => {
        event.preventDefault();
        restart();
      },
      onchange: (event: Event) => {
        if (event.target !== tag) restart();
      },
    },
    field('Kind', kind),
    field('Status', status),
    field('Claim', claim),
    field('Importance at least', importance),
    field('Tag', tag),
    field('Created from', since),
    field('Created until', until),
    field('Sort', sort),
    field('Per page', size),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Apply')),
  );
  const bulkForm = h(
    'form',
    { class: 'inline-form bulk-form', id: 'bulk-form', onsubmit: bulk },
    field('New status', bulkStatus),
    bulkButton,
  );
  replace(
    root,
    h('div', { class: 'view-head' }, h('h1', null, 'Entries')),
    filters,
    h('div', { class: 'card' }, summary, bulkForm, message, output, h('div', { class: 'pager' }, prev, next)),
  );
  void load();
};
