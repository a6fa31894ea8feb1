/** The entry page's writes: append, rewrite, set status, forget, link and unlink. */

import { EDGE_TYPES, ENTRY_STATUSES } from '../../../src/contract/enums.ts';
import type { App } from '../app.ts';
import { confirmAction } from '../confirm.ts';
import { field, h, replace, select } from '../dom.ts';
import {
  AppendDocument,
  type EdgeType,
  type EntryStatus,
  ForgetDocument,
  LinkDocument,
  RecentEntriesDocument,
  SetStatusDocument,
  UnlinkDocument,
  UpdateDocument,
} from '../generated/graphql.ts';
import type { EntryDetail } from '../model.ts';
import type { Connection } from './entry-sections.ts';

/** What every action of one entry's page shares. */
export interface EntryPage {
  app: App;
  /** The entry's id. */
  id: string;
  /** The whole page, replaced once the entry is forgotten. */
  root: HTMLElement;
  /** Runs a write, then says what happened and shows the entry anew; a refusal is explained instead. */
  act(what: string, run: () => Promise<unknown>): Promise<void>;
  /** Explains why a write failed: a missing token, or a role that may not write. */
  fail(error: unknown): void;
}

/** A form built once, so a live refresh never wipes what the user is typing; `show` updates it to the entry. */
interface EntryForm {
  element: HTMLFormElement;
  show(entry: EntryDetail): void;
}

/** A submit handler that stays on the page. */
function submitted(run: () => void) {
  return (event: SubmitEvent) => {
    event.preventDefault();
    run();
  };
}

/** Adds text after the content; the old content goes to the history. */
export function appendForm(page: EntryPage): HTMLFormElement {
  const addition = h('textarea', { name: 'addition', rows: 3, required: true });
  const append = async () => {
    await page.app.gql(AppendDocument, { input: { id: page.id, addition: addition.value } });
    addition.value = '';
  };
  return h(
    'form',
    { class: 'card', id: 'append-form', onsubmit: submitted(() => void page.act('Appended.', append)) },
    h('h2', null, 'Append'),
    field('Text to add', addition, 'Added after a blank line; the old content goes to the history.'),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Append')),
  );
}

/** Rewrites the content; starts from the current content so a small edit stays small. */
export function updateForm(page: EntryPage): EntryForm {
  const replacement = h('textarea', { name: 'content', rows: 4, required: true });
  const update = () => page.app.gql(UpdateDocument, { input: { id: page.id, content: replacement.value } });
  const element = h(
    'form',
    { class: 'card', id: 'update-form', onsubmit: submitted(() => void page.act('Updated.', update)) },
    h('h2', null, 'Rewrite'),
    field('New content', replacement),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Replace content')),
  );
  return {
    element,
    show: (entry) => {
      if (!replacement.value) replacement.value = entry.content;
    },
  };
}

/** Sets the status, showing the current one. */
export function statusForm(page: EntryPage): EntryForm {
  const status = select('status', ENTRY_STATUSES);
  const setStatus = () =>
    page.app.gql(SetStatusDocument, { input: { id: page.id, status: status.value as EntryStatus } });
  const element = h(
    'form',
    { class: 'inline-form', onsubmit: submitted(() => void page.act(`Status set to ${status.value}.`, setStatus)) },
    field('Status', status),
    h('button', { type: 'submit' }, 'Set status'),
  );
  return {
    element,
    show: (entry) => {
      status.value = entry.status;
    },
  };
}

/** Forgets the entry once the user confirms; the page then says it is gone. */
export function forgetButton(page: EntryPage): HTMLButtonElement {
  const forget = async () => {
    const ok = await confirmAction(
      'Forget this entry?',
      'It is removed with its tags, history and edges. This cannot be undone.',
      'Forget',
    );
    if (!ok) return;
    try {
      await page.app.gql(ForgetDocument, { input: { id: page.id } });
      replace(
        page.root,
        h('h1', null, 'Forgotten'),
        h('p', null, 'The entry is gone. ', h('a', { href: '#/feed' }, 'Back to the feed')),
      );
    } catch (error) {
      page.fail(error);
    }
  };
  return h('button', { type: 'button', class: 'danger', onclick: forget }, 'Forget…');
}

/** Links the entry to another one, either way round; offers recent entries to pick from. */
export function linkForm(page: EntryPage): { element: HTMLFormElement; suggest(): void } {
  const other = h('input', {
    name: 'other',
    required: true,
    list: 'link-candidates',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  const candidates = h('datalist', { id: 'link-candidates' });
  const type = select('type', EDGE_TYPES, 'RELATES_TO');
  const direction = select('direction', ['this → other', 'other → this'], 'this → other');
  const weight = h('input', { name: 'weight', type: 'number', min: 0.05, max: 1, step: 0.05, value: '1' });
  const link = () => {
    const outward = direction.value.startsWith('this');
    const target = other.value.trim();
    void page.act(`Linked ${type.value}.`, async () => {
      await page.app.gql(LinkDocument, {
        input: {
          src: outward ? page.id : target,
          dst: outward ? target : page.id,
          type: type.value as EdgeType,
          weight: Number(weight.value),
        },
      });
      other.value = '';
    });
  };
  const element = h(
    'form',
    { class: 'card form-grid', id: 'link-form', onsubmit: submitted(link) },
    h('h2', { class: 'wide' }, 'Link'),
    h('div', { class: 'wide' }, field('Other entry id', other, 'Pick a recent entry or paste an id.'), candidates),
    field('Edge type', type),
    field('Direction', direction),
    field('Weight (0–1]', weight),
    h('div', { class: 'actions wide' }, h('button', { type: 'submit', class: 'primary' }, 'Link')),
  );
  const suggest = () => {
    page.app
      .gql(RecentEntriesDocument, { n: 50 })
      .then(({ recent }) =>
        replace(
          candidates,
          recent.filter((e) => e.id !== page.id).map((e) => h('option', { value: e.id }, e.content.slice(0, 80))),
        ),
      )
      .catch(() => {});
  };
  return { element, suggest };
}

/** Removes one of the entry's edges. */
export function unlinkButton(page: EntryPage, c: Connection): HTMLButtonElement {
  const { src, dst, type } = c.edge;
  return h(
    'button',
    {
      type: 'button',
      class: 'small',
      'aria-label': `Unlink ${type} with ${c.entry.content.slice(0, 40)}`,
      onclick: () => page.act(`Unlinked ${type}.`, () => page.app.gql(UnlinkDocument, { input: { src, dst, type } })),
    },
    'Unlink',
  );
}
