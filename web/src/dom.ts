/** Small DOM helpers: elements are built with `h`, never from HTML strings, so text is always text. */

export type Child = Node | string | number | null | undefined | false | Child[];
type AttrValue = string | number | boolean | null | undefined | ((event: never) => void);

/**
 * Creates an element: `h('a', { href: '#/feed', class: 'link' }, 'Feed')`.
 * `on<event>` attributes become listeners; `true` sets a boolean attribute, `false`/null omit it.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, AttrValue> | null = null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (typeof value === 'function') {
      el.addEventListener(name.slice(2).toLowerCase(), value as EventListener);
    } else if (value === true) {
      el.setAttribute(name, '');
    } else if (value !== false && value != null) {
      el.setAttribute(name, String(value));
    }
  }
  append(el, children);
  return el;
}

/** Appends children, flattening arrays and skipping empty values. */
export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child == null || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** Replaces all of an element's children. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** A labelled form control: the label's `for` points at the control's id. */
export function field(label: string, control: HTMLElement, hint?: string): HTMLDivElement {
  const id = control.id || `f-${Math.random().toString(36).slice(2, 9)}`;
  control.id = id;
  const hintEl = hint ? h('p', { class: 'hint', id: `${id}-hint` }, hint) : null;
  if (hintEl) control.setAttribute('aria-describedby', hintEl.id);
  return h('div', { class: 'field' }, h('label', { for: id }, label), control, hintEl);
}

/** A `<select>` over a list of values; `empty` adds a first option with value "". */
export function select(name: string, values: readonly string[], selected?: string, empty?: string): HTMLSelectElement {
  return h(
    'select',
    { name },
    empty !== undefined ? h('option', { value: '', selected: !selected }, empty) : null,
    values.map((v) => h('option', { value: v, selected: v === selected }, v)),
  );
}

/** Shortens text to `max` characters on a word boundary, with an ellipsis. */
export function shorten(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > max * 0.6 ? cut.slice(0, space) : cut}…`;
}

/** A timestamp as the reader's local date and time, with the ISO instant in a `<time>`. */
export function time(iso: string | null | undefined): HTMLElement | string {
  if (!iso) return '—';
  const date = new Date(iso);
  return h('time', { datetime: iso, title: iso }, date.toLocaleString());
}

/** A small coloured label, e.g. a kind, status or edge type. */
export function badge(text: string, kind = ''): HTMLSpanElement {
  return h('span', { class: `badge ${kind}`.trim(), 'data-value': text }, text);
}

/** The machine-readable code of an error, small, under the words that explain it. */
export function codeLine(code: string): HTMLParagraphElement {
  return h('p', { class: 'error-code' }, 'Code: ', h('code', null, code));
}

/**
 * An alert box for an error: the words first (`words`, or the server's message), then its GraphQL
 * error code when there is one, for those who look it up.
 */
export function errorBox(error: unknown, words?: string): HTMLDivElement {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  return h(
    'div',
    { class: 'alert', role: 'alert', 'data-code': code },
    h('p', null, words ?? message),
    code ? codeLine(code) : null,
  );
}
