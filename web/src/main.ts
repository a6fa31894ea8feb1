import './styles.css';
import { createApi, DocumentSender } from './api.ts';
import { type App, parseRoute, type View, workspaceName } from './app.ts';
import { h, replace } from './dom.ts';
import { type ConnectionState, LiveEvents } from './live.ts';
import { loadSession, type Session, saveSession, WORKSPACE_ID } from './session.ts';
import { captureView } from './views/capture.ts';
import { entriesView } from './views/entries.ts';
import { entryView } from './views/entry.ts';
import { feedView } from './views/feed.ts';
import { graphView } from './views/graph.ts';
import { recallView } from './views/recall.ts';
import { statsView } from './views/stats.ts';

const VIEWS: Record<string, View> = {
  feed: feedView,
  recall: recallView,
  entry: entryView,
  entries: entriesView,
  graph: graphView,
  capture: captureView,
  stats: statsView,
};

const TITLES: Record<string, string> = {
  feed: 'Feed',
  recall: 'Recall',
  entry: 'Entry',
  entries: 'Entries',
  graph: 'Graph',
  capture: 'Capture',
  stats: 'Stats',
};

const STATE_TEXT: Record<ConnectionState, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  unauthorized: 'Needs a token',
  forbidden: 'No access',
  stopped: 'Stopped',
};

function byId<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing from index.html`);
  return el as T;
}

const main = byId<HTMLElement>('view');
const indicator = byId<HTMLElement>('connection');
const workspaceButton = byId<HTMLButtonElement>('workspace-button');
const dialog = byId<HTMLDialogElement>('access-dialog');
const dialogForm = byId<HTMLFormElement>('access-form');
const workspaceInput = byId<HTMLInputElement>('access-workspace');
const tokenInput = byId<HTMLInputElement>('access-token');
const dialogReason = byId<HTMLElement>('access-reason');

const session: Session = loadSession();
/** Outlives sessions: whether the server takes documents as text is the server's, not the workspace's. */
const sender = new DocumentSender();
let app: App;
let viewController = new AbortController();
let currentRouteName = '';

/** Opens the workspace/token dialog, optionally saying why. */
function askForAccess(reason = ''): void {
  if (dialog.open) return;
  dialogReason.textContent = reason;
  workspaceInput.value = session.workspace;
  tokenInput.value = session.token ?? '';
  dialog.showModal();
  (reason ? tokenInput : workspaceInput).focus();
}

function showState(state: ConnectionState): void {
  indicator.dataset.state = state;
  indicator.textContent = STATE_TEXT[state];
  showWorkspace();
}

/** Names the workspace in use: in token mode the server's answer, never the stale local setting. */
function showWorkspace(): void {
  const name = app ? workspaceName(app) : null;
  workspaceButton.textContent = `Workspace: ${name ?? (session.token ? 'from the token…' : session.workspace)}`;
  document.title = `${TITLES[currentRouteName] ?? 'Mini-Sphere'} · ${name ?? '…'} · Mini-Sphere`;
}

/** (Re)starts everything that depends on the session: the API client, the live stream, the view. */
function startSession(): void {
  app?.live.stop();
  const onUnauthenticated = () =>
    askForAccess('The server asks for a token: paste it in the Token field below. Ask its operator for one.');
  // A fresh client per session: nothing one workspace cached is ever shown in another.
  const api = createApi(() => session, onUnauthenticated, sender);
  const live = new LiveEvents(api, sender, session, onUnauthenticated);
  app = { gql: api.gql, live, session, askForAccess };
  live.onState(showState);
  showState(live.state);
  void live.start();
  render(true);
}

function render(force = false): void {
  const route = parseRoute(location.hash);
  const view = VIEWS[route.name];
  viewController.abort();
  viewController = new AbortController();
  for (const link of document.querySelectorAll<HTMLAnchorElement>('a[data-route]')) {
    if (link.dataset.route === route.name) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  if (!view) {
    replace(main, h('h1', null, 'Not found'), h('p', null, h('a', { href: '#/feed' }, 'Go to the feed')));
    return;
  }
  const moved = force || route.name !== currentRouteName;
  currentRouteName = route.name;
  showWorkspace();
  void Promise.resolve(view(app, route, main, viewController.signal)).catch((error: unknown) => {
    console.error(error);
  });
  // Move focus to the new page so keyboard and screen-reader users land on it (not on a re-query).
  if (moved && !force && !main.contains(document.activeElement)) main.focus({ preventScroll: true });
}

dialogForm.addEventListener('submit', (event) => {
  const action = (event.submitter as HTMLButtonElement | null)?.value ?? 'save';
  if (action === 'cancel') return;
  if (action === 'save' && !WORKSPACE_ID.test(workspaceInput.value.trim())) {
    event.preventDefault();
    workspaceInput.focus();
    return;
  }
  session.workspace = workspaceInput.value.trim();
  session.token = action === 'clear-token' ? null : tokenInput.value.trim() || null;
  saveSession(session);
  startSession();
});

workspaceButton.addEventListener('click', () => askForAccess());
window.addEventListener('hashchange', () => render());
if (!location.hash) history.replaceState(null, '', '#/feed');
startSession();
