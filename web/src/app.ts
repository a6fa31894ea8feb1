import type { Gql } from './api.ts';
import type { LiveEvents } from './live.ts';
import type { Session } from './session.ts';

/** What every view gets: the API (the normalized cache behind it), the live event stream and the session. */
export interface App {
  gql: Gql;
  live: LiveEvents;
  session: Session;
  /** Opens the workspace-and-token dialog, saying why; where a user pastes a token. */
  askForAccess(reason?: string): void;
}

/**
 * The workspace the dashboard works in: the server's word once it has answered (a token names
 * its own workspace), before that the open-mode setting, or nothing in token mode.
 */
export function workspaceName(app: Pick<App, 'live' | 'session'>): string | null {
  return app.live.workspace ?? (app.session.token ? null : app.session.workspace);
}

/** A parsed hash route: `#/entry/<id>?x=1` is `{ name: 'entry', id, params: x=1 }`. */
export interface Route {
  name: string;
  id: string | undefined;
  params: URLSearchParams;
}

/**
 * Renders a view into `root`. `signal` aborts when the user leaves it, so a view can drop its
 * listeners; one view's async work never draws into the next one's page.
 */
export type View = (app: App, route: Route, root: HTMLElement, signal: AbortSignal) => void | Promise<void>;

export function parseRoute(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#\/?/, '').split('?', 2);
  const [name = '', ...rest] = path.split('/');
  const id = rest.length ? decodeURIComponent(rest.join('/')) : undefined;
  return { name: name || 'feed', id, params: new URLSearchParams(query) };
}

/** A hash link: `href('graph', undefined, { ids: 'a,b' })` is `#/graph?ids=a%2Cb`. */
export function href(name: string, id?: string, params?: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params ?? {})) if (v !== undefined && v !== '') search.set(k, String(v));
  const query = search.toString();
  return `#/${name}${id ? `/${encodeURIComponent(id)}` : ''}${query ? `?${query}` : ''}`;
}
