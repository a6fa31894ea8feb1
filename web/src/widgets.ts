import type { EdgeType } from '../../src/contract/enums.ts';
import { type Capability, ROLE_CAPABILITIES, ROLES } from '../../src/contract/roles.ts';
import { type App, href } from './app.ts';
import { badge, errorBox, h, shorten } from './dom.ts';
import { EDGE_COLORS } from './model.ts';

/** A link to an entry's page, labelled with the start of its content (or its id). */
export function entryLink(id: string, content: string | undefined, max = 80): HTMLAnchorElement {
  return h(
    'a',
    { href: href('entry', id), class: 'entry-link', title: id },
    content ? shorten(content, max) : shortId(id),
  );
}

/** The end of an id, enough to tell entries apart at a glance. */
export function shortId(id: string): string {
  return id.length > 12 ? `…${id.slice(-8)}` : id;
}

/** An edge type with its graph colour. */
export function edgeChip(type: EdgeType): HTMLSpanElement {
  const chip = badge(type, 'edge');
  chip.style.setProperty('--edge-color', EDGE_COLORS[type]);
  return chip;
}

/** Tags as a list of chips. */
export function tagList(tags: readonly string[]): HTMLUListElement | null {
  if (!tags.length) return null;
  return h(
    'ul',
    { class: 'tags', 'aria-label': 'Tags' },
    tags.map((t) => h('li', null, h('a', { href: href('recall', undefined, { tag: t }) }, `#${t}`))),
  );
}

/**
 * Kind and status of an entry as badges, and its freshness only when that says something the
 * status does not: one badge per state (no CURRENT beside ACTIVE, no SUPERSEDED twice).
 */
export function entryBadges(entry: { kind: string; status: string; freshness?: string }): HTMLSpanElement {
  const fresh = entry.freshness;
  const telling = fresh && fresh !== 'CURRENT' && fresh !== entry.status;
  return h(
    'span',
    { class: 'badges' },
    badge(entry.kind, 'kind'),
    badge(entry.status, 'status'),
    telling ? badge(fresh, 'freshness') : null,
  );
}

/** A number with up to `digits` decimals, or a dash. */
export function num(value: number | null | undefined, digits = 3): string {
  return value == null ? '—' : String(Number(value.toFixed(digits)));
}

const DOING: Record<Capability, string> = { read: 'Reading', write: 'Writing', maintain: 'Maintenance' };

/**
 * Why a request was refused, in words a user can act on, with the way out: a missing token
 * (401) points at the token dialog; a role that may not do something (403) names the roles that
 * may. Any other error is shown as it came.
 */
export function problemBox(
  app: Pick<App, 'askForAccess' | 'session'>,
  error: unknown,
  need: Capability = 'read',
  words?: string,
) {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  const ask = (label: string, reason: string) =>
    h('button', { type: 'button', class: 'primary', onclick: () => app.askForAccess(reason) }, label);
  if (code === 'UNAUTHENTICATED') {
    const reason = app.session.token
      ? 'The server did not accept the saved token (revoked, expired or mistyped): paste another one.'
      : 'The server asks for a token: paste it in the Token field below.';
    return h(
      'div',
      { class: 'alert access-problem', role: 'alert', 'data-code': code },
      h('p', null, h('strong', null, app.session.token ? 'The token was refused. ' : 'This server needs a token. ')),
      h(
        'p',
        null,
        'Paste one under “Workspace and token” (the Workspace button at the top); it is kept in this browser.',
      ),
      ask('Enter a token', reason),
    );
  }
  if (code === 'FORBIDDEN' && app.session.token) {
    // The server names the token's role in its message; which roles grant what the contract says.
    const roles = ROLES.filter((r) => ROLE_CAPABILITIES[r].has(need));
    return h(
      'div',
      { class: 'alert access-problem', role: 'alert', 'data-code': code },
      h('p', null, h('strong', null, 'FORBIDDEN: '), message),
      h('p', null, `${DOING[need]} needs a token with the ${roles.join(' or ')} role.`),
      ask('Use another token', `${DOING[need]} needs a token with the ${roles.join(' or ')} role.`),
    );
  }
  return errorBox(error, words);
}
