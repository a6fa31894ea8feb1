/** The entry page's writes: append, rewrite, set status, forget, link and unlink. */

import { EDGE_TYPES, ENTRY_STATUSES } from '../../../src/contract/enums.ts';
import type { App } from '../app.ts';
import { confirmAction } from '../confirm.ts';
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
} from '../documents.ts';
import { codeLine, field, h, replace, select } from '../dom.ts';
import type { EntryDetail } from '../model.ts';
import type { Connection } from './entry-sections.ts';

/** What every action of one entry's page shares. */
export interface EntryPage {
  app: App;
  /** The entry's id. */
  id: string;
  /** The whole page, replaced once the entry is forgotten. */
  root: HTMLElement;
  /**
   * Runs a write, then shows the entry as the server now has it (every form follows). What
   * happened, or why nothing did, is said in `message`, next to the control that caused it.
   * `explain` may say more about a refusal than the default (it returns whether it did).
   * Resolves whether the write went through.
   */
  act(
    what: string,
    run: () => Promise<unknown>,
    message: HTMLElement,
    explain?: (error: unknown) => boolean,
  ): Promise<boolean>;
  /** Explains in `message` why a write failed: in words, with the error's code beside them. */
  fail(error: unknown, message: HTMLElement): void;
}

/** A form built once, so a live refresh never wipes what the user is typing; `show` updates it to the entry. */
interface EntryForm {
  element: HTMLFormElement;
  show(entry: EntryDetail): void;
}

/** Where a control's outcome is said: a polite live region right below it. */
export function messageArea(id: string): HTMLDivElement {
  return h('div', { class: 'form-message', id, role: 'status', 'aria-live': 'polite' });
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
  const message = messageArea('append-message');
  const append = async () => {
    await page.app.gql(AppendDocument, { input: { id: page.id, addition: addition.value } });
    addition.value = '';
  };
  return h(
    'form',
    { class: 'card', id: 'append-form', onsubmit: submitted(() => void page.act('Appended.', append, message)) },
    h('h2', null, 'Append'),
    field('Text to add', addition, 'Added after a blank line; the old content goes to the history.'),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Append')),
    message,
  );
}

/**
 * Rewrites the content, starting from the current content so a small edit stays small. The box
 * follows the entry while it is untouched; once the user edits it, a change from elsewhere is
 * announced instead of overwriting their text, and the rewrite is sent with the hash of the
 * content it was made from, so the server refuses it (CONFLICT) rather than drop what came in
 * between. The user then starts again from the current content or replaces it knowingly.
 */
export function updateForm(page: EntryPage): EntryForm {
  const replacement = h('textarea', { name: 'content', rows: 4, required: true });
  const message = messageArea('update-message');
  const notice = h('div', { class: 'form-notice', id: 'update-notice', role: 'status', 'aria-live': 'polite' });
  /** The content the box was filled from, and the server's latest. */
  let base: { content: string; hash: string } | null = null;
  let latest: { content: string; hash: string } | null = null;

  const edited = () => base !== null && replacement.value !== base.content;
  const restart = () => {
    if (!latest) return;
    base = latest;
    replacement.value = latest.content;
    replace(notice);
    replace(message);
    replacement.focus();
  };
  const restartButton = () =>
    h('button', { type: 'button', class: 'small', onclick: restart }, 'Start again from the current content');
  const changedElsewhere = () => {
    // A refused rewrite already says so, with the same ways out, right below.
    if (message.querySelector('[data-code="CONFLICT"]')) return;
    replace(
      notice,
      h(
        'div',
        { class: 'alert warn' },
        h('p', null, 'The content changed after you began this rewrite (an append or another rewrite came in).'),
        h('p', null, 'Your text is kept; replacing now would drop that change, so it is refused until you choose.'),
        restartButton(),
      ),
    );
  };

  const send = (expected: string) => {
    const content = replacement.value;
    const run = async () => {
      await page.app.gql(UpdateDocument, { input: { id: page.id, content, expectedContentHash: expected } });
      base = null; // what the server now has is what the box holds: follow it again
    };
    return page.act('Replaced.', run, message, onConflict);
  };
  const onConflict = (error: unknown) => {
    if ((error as { code?: string }).code !== 'CONFLICT') return false;
    const overwrite = async () => {
      if (!latest) return;
      const ok = await confirmAction(
        'Replace the current content?',
        'The entry changed after you began this rewrite. Replacing keeps the current content in the history, but it will no longer be the entry’s content.',
        'Replace',
      );
      if (ok) await send(latest.hash);
    };
    replace(
      message,
      h(
        'div',
        { class: 'alert', role: 'alert', 'data-code': 'CONFLICT' },
        h('p', null, 'Not replaced: the content changed after you began this rewrite. Nothing was written.'),
        h(
          'p',
          { class: 'actions' },
          restartButton(),
          h('button', { type: 'button', onclick: overwrite }, 'Replace anyway…'),
        ),
        codeLine('CONFLICT'),
      ),
    );
    return true;
  };

  const update = () => {
    if (base) void send(base.hash);
  };
  const element = h(
    'form',
    { class: 'card', id: 'update-form', onsubmit: submitted(update) },
    h('h2', null, 'Rewrite'),
    field('New content', replacement),
    notice,
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Replace content')),
    message,
  );
  return {
    element,
    show: (entry) => {
      latest = { content: entry.content, hash: entry.contentHash };
      if (!base || !edited()) {
        base = latest;
        replacement.value = entry.content;
        replace(notice);
      } else if (base.hash !== entry.contentHash) {
        changedElsewhere();
      } else {
        replace(notice);
      }
    },
  };
}

/** Sets the status, showing the current one. */
export function statusForm(page: EntryPage): EntryForm {
  const status = select('status', ENTRY_STATUSES);
  const message = messageArea('status-message');
  const setStatus = () =>
    page.app.gql(SetStatusDocument, { input: { id: page.id, status: status.value as EntryStatus } });
  const element = h(
    'form',
    {
      class: 'inline-form',
      id: 'status-form',
      onsubmit: submitted(() => void page.act(`Status set to ${status.value}.`, setStatus, message)),
    },
    field('Status', status),
    h('button', { type: 'submit' }, 'Set status'),
    message,
  );
  return {
    element,
    show: (entry) => {
      status.value = entry.status;
    },
  };
}

/** Forgets the entry once the user confirms; the page then says it is gone. */
export function forgetButton(page: EntryPage, message: HTMLElement): HTMLButtonElement {
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
      page.fail(error, message);
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
  const message = messageArea('link-message');
  const link = () => {
    const outward = direction.value.startsWith('this');
    const target = other.value.trim();
    void page.act(
      `Linked ${type.value}.`,
      async () => {
        await page.app.gql(LinkDocument, {
          input: {
            src: outward ? page.id : target,
            dst: outward ? target : page.id,
            type: type.value as EdgeType,
            weight: Number(weight.value),
          },
        });
        other.value = '';
      },
      message,
    );
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
    h('div', { class: 'wide' }, message),
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

/** Removes one of the entry's edges; what happened is said in `message`, above the list. */
export function unlinkButton(page: EntryPage, c: Connection, message: HTMLElement): HTMLButtonElement {
  const { src, dst, type } = c.edge;
  return h(
    'button',
    {
      type: 'button',
      class: 'small',
      'aria-label': `Unlink ${type} with ${c.entry.content.slice(0, 40)}`,
      onclick: () =>
        page.act(`Unlinked ${type}.`, () => page.app.gql(UnlinkDocument, { input: { src, dst, type } }), message),
    },
    'Unlink',
  );
}
