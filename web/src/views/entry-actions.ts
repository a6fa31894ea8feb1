/** The entry page's writes: append, rewrite, set status, forget, link and unlink. */

import { EDGE_TYPES, ENTRY_STATUSES } from '../../../src/contract/enums.ts';
import { allowedEdgeTypes, KIND_GATES } from '../../../src/contract/kind-gates.ts';
import type { App } from '../app.ts';
import { confirmAction } from '../confirm.ts';
import {
  AppendDocument,
  type EdgeType,
  type EntryKind,
  type EntryStatus,
  ForgetDocument,
  LinkDocument,
  SetStatusDocument,
  UnlinkDocument,
  UpdateDocument,
} from '../documents.ts';
import { codeLine, field, h, replace, select, shorten } from '../dom.ts';
import type { EntryDetail } from '../model.ts';
import { entryPicker } from '../picker.ts';
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
  /** Explains in `message` why a write failed: in words (`words`, or the server's), with the error's code beside them. */
  fail(error: unknown, message: HTMLElement, words?: string): void;
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

const words = (value: string) => value.toLowerCase().replaceAll('_', ' ');

/** Why an edge type does not fit the two kinds, in words: "document of needs a document as its source". */
function gateInWords(type: EdgeType, srcKind: EntryKind, dstKind: EntryKind): string | null {
  const gate = KIND_GATES[type];
  if (gate?.src && srcKind !== gate.src)
    return `“${words(type)}” needs a ${words(gate.src)} entry as its source; this source is ${words(srcKind)}.`;
  if (gate?.dst && dstKind !== gate.dst)
    return `“${words(type)}” needs a ${words(gate.dst)} entry as its target; this target is ${words(dstKind)}.`;
  return null;
}

/**
 * Links the entry to another one, either way round. The other entry is found by typing (recall
 * as you type), and the edge-type menu then offers only the types the two kinds allow, by the
 * same gates the API checks (src/contract/kind-gates.ts).
 */
export function linkForm(page: EntryPage, signal?: AbortSignal): EntryForm & { suggest(): void } {
  let thisKind: EntryKind | null = null;
  const type = select('type', EDGE_TYPES, 'RELATES_TO');
  const direction = select('direction', ['this → other', 'other → this'], 'this → other');
  const weight = h('input', { name: 'weight', type: 'number', min: 0.05, max: 1, step: 0.05, value: '1' });
  const message = messageArea('link-message');
  const gateNote = h('p', { class: 'hint', id: 'link-types-hint' });
  const narrow = () => {
    const other = picker.picked();
    const outward = direction.value.startsWith('this');
    const allowed =
      other && thisKind
        ? outward
          ? allowedEdgeTypes(thisKind, other.kind)
          : allowedEdgeTypes(other.kind, thisKind)
        : [...EDGE_TYPES];
    const keep = allowed.includes(type.value as EdgeType) ? type.value : 'RELATES_TO';
    replace(
      type,
      allowed.map((t) => h('option', { value: t, selected: t === keep }, t)),
    );
    gateNote.textContent =
      other && thisKind
        ? `${allowed.length} of ${EDGE_TYPES.length} types fit a ${words(outward ? thisKind : other.kind)} source and a ${words(outward ? other.kind : thisKind)} target.`
        : 'Choose the other entry first to see only the types that fit.';
  };
  const picker = entryPicker(page.app, 'other', { exclude: () => page.id, onPick: narrow, signal });
  direction.addEventListener('change', narrow);
  const explain = (error: unknown) => {
    const other = picker.picked();
    if ((error as { code?: string }).code !== 'EDGE_KIND_MISMATCH' || !other || !thisKind) return false;
    const outward = direction.value.startsWith('this');
    const said = outward
      ? gateInWords(type.value as EdgeType, thisKind, other.kind)
      : gateInWords(type.value as EdgeType, other.kind, thisKind);
    page.fail(error, message, said ?? undefined);
    return true;
  };
  const link = () => {
    const outward = direction.value.startsWith('this');
    const target = picker.value();
    if (!target) {
      replace(
        message,
        h('div', { class: 'alert', role: 'alert' }, 'Type some words of the other entry and pick it from the list.'),
      );
      picker.input.focus();
      return;
    }
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
        picker.clear();
      },
      message,
      explain,
    );
  };
  const element = h(
    'form',
    { class: 'card form-grid', id: 'link-form', onsubmit: submitted(link) },
    h('h2', { class: 'wide' }, 'Link'),
    h(
      'div',
      { class: 'wide' },
      field('Other entry', picker.input, 'Type words of it (recall runs as you type), or paste its id.'),
      picker.element,
    ),
    h('div', null, field('Edge type', type), gateNote),
    field('Direction', direction),
    field('Weight (0–1]', weight),
    h('div', { class: 'actions wide' }, h('button', { type: 'submit', class: 'primary' }, 'Link')),
    h('div', { class: 'wide' }, message),
  );
  narrow();
  return {
    element,
    show: (entry) => {
      thisKind = entry.kind;
      narrow();
    },
    suggest: () => {},
  };
}

/**
 * Removes one of the entry's edges after a confirmation; the message then offers to undo it
 * (the same edge is linked again, with its weight and provenance).
 */
export function unlinkButton(page: EntryPage, c: Connection, message: HTMLElement): HTMLButtonElement {
  const { src, dst, type, weight, provenance } = c.edge;
  const other = shorten(c.entry.content, 60);
  const undo = () =>
    void page.act(
      `Linked ${type} again.`,
      () => page.app.gql(LinkDocument, { input: { src, dst, type, weight, provenance } }),
      message,
    );
  const unlink = async () => {
    const ok = await confirmAction(
      'Remove this edge?',
      `The ${words(type)} edge with “${other}” is removed. You can undo it right after.`,
      'Unlink',
    );
    if (!ok) return;
    const done = await page.act(
      `Unlinked ${type}.`,
      () => page.app.gql(UnlinkDocument, { input: { src, dst, type } }),
      message,
    );
    if (done) {
      replace(
        message,
        h(
          'p',
          { class: 'ok' },
          `Unlinked ${words(type)} with “${other}”. `,
          h('button', { type: 'button', class: 'small', onclick: undo }, 'Undo'),
        ),
      );
    }
  };
  return h(
    'button',
    {
      type: 'button',
      class: 'small',
      'aria-label': `Unlink ${type} with ${c.entry.content.slice(0, 40)}`,
      onclick: () => void unlink(),
    },
    'Unlink',
  );
}
