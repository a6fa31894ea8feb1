/**
 * Picks an entry by typing words: recall runs as the user types (after a short pause) and the
 * hits are offered in a listbox, so any entry, however old, is found without pasting an id.
 * An id pasted or typed in full still works. Keyboard: arrows move through the hits, Enter picks,
 * Escape closes the list (the ARIA combobox pattern).
 */

import type { App } from './app.ts';
import { type EntryKind, RecallExplainedDocument } from './documents.ts';
import { h, replace, shorten } from './dom.ts';
import { entryBadges } from './widgets.ts';

export interface PickedEntry {
  id: string;
  content: string;
  kind: EntryKind;
  status: string;
}

/** How many hits the list offers. */
const HITS = 8;
/** How long typing must pause before recall runs. */
const PAUSE_MS = 200;
/** Entry ids are UUIDs. */
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface EntryPicker {
  /** The search box, with its list; label it with `field`. */
  input: HTMLInputElement;
  /** The list of hits and the chosen entry, to place under the field. */
  element: HTMLElement;
  /** The chosen entry's id: picked from the list, or a full id typed in. */
  value(): string;
  picked(): PickedEntry | null;
  clear(): void;
}

export function entryPicker(
  app: App,
  name: string,
  options: { exclude?: () => string | null; onPick?: (entry: PickedEntry | null) => void; signal?: AbortSignal } = {},
): EntryPicker {
  const listId = `${name}-hits`;
  const input = h('input', {
    name,
    type: 'search',
    autocomplete: 'off',
    spellcheck: 'false',
    role: 'combobox',
    'aria-autocomplete': 'list',
    'aria-expanded': 'false',
    'aria-controls': listId,
    maxlength: 1000,
  });
  const list = h('ul', { class: 'picker-hits', id: listId, role: 'listbox', hidden: true });
  const chosen = h('p', { class: 'picker-chosen', 'aria-live': 'polite' });
  let hits: PickedEntry[] = [];
  let active = -1;
  let current: PickedEntry | null = null;
  let timer = 0;
  let asked = 0;

  const close = () => {
    list.hidden = true;
    input.setAttribute('aria-expanded', 'false');
    input.removeAttribute('aria-activedescendant');
  };
  const pick = (entry: PickedEntry | null) => {
    current = entry;
    if (entry) input.value = shorten(entry.content, 80);
    replace(chosen, entry ? ['Chosen: ', entryBadges(entry), ' ', shorten(entry.content, 100)] : null);
    close();
    options.onPick?.(entry);
  };
  const highlight = (index: number) => {
    active = index;
    for (const [i, li] of [...list.children].entries()) li.setAttribute('aria-selected', String(i === index));
    const li = list.children[index];
    if (li) input.setAttribute('aria-activedescendant', li.id);
  };
  const show = (found: PickedEntry[], words: string) => {
    hits = found;
    active = -1;
    replace(
      list,
      found.length
        ? found.map((entry, i) =>
            h(
              'li',
              {
                id: `${listId}-${i}`,
                role: 'option',
                'aria-selected': 'false',
                'data-entry-id': entry.id,
                onmousedown: (event: MouseEvent) => {
                  event.preventDefault(); // keep focus in the box
                  pick(entry);
                },
              },
              entryBadges(entry),
              ' ',
              shorten(entry.content, 90),
            ),
          )
        : h('li', { class: 'muted', role: 'option', 'aria-disabled': 'true' }, `Nothing matches “${words}”.`),
    );
    list.hidden = false;
    input.setAttribute('aria-expanded', 'true');
  };
  const search = async () => {
    const words = input.value.trim();
    if (!words || ID.test(words)) {
      close();
      return;
    }
    const ask = ++asked;
    try {
      const { recall } = await app.gql(RecallExplainedDocument, { query: words, topK: HITS + 1, hops: 0 });
      if (ask !== asked || options.signal?.aborted) return; // a newer search answers instead
      const skip = options.exclude?.();
      show(
        recall.hits
          .map((hit) => hit.entry)
          .filter((e) => e.id !== skip)
          .slice(0, HITS),
        words,
      );
    } catch {
      if (ask === asked) show([], words);
    }
  };
  input.addEventListener('input', () => {
    if (current) {
      current = null;
      replace(chosen);
      options.onPick?.(null);
    }
    clearTimeout(timer);
    timer = window.setTimeout(() => void search(), PAUSE_MS);
  });
  input.addEventListener('keydown', (event) => {
    if (list.hidden || !hits.length) return;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      highlight((active + step + hits.length) % hits.length);
    } else if (event.key === 'Enter' && active >= 0) {
      event.preventDefault();
      pick(hits[active] ?? null);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      close();
    }
  });
  input.addEventListener('blur', () => window.setTimeout(close, 150));
  options.signal?.addEventListener('abort', () => clearTimeout(timer));

  return {
    input,
    element: h('div', { class: 'picker' }, list, chosen),
    value: () => current?.id ?? (ID.test(input.value.trim()) ? input.value.trim() : ''),
    picked: () => current,
    clear: () => {
      input.value = '';
      pick(null);
    },
  };
}
