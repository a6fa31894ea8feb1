/** Which workspace the dashboard works in and with which token, kept in localStorage. */

const WORKSPACE_KEY = 'mini-sphere.workspace';
const TOKEN_KEY = 'mini-sphere.token';
export const DEFAULT_WORKSPACE = 'default';
export const WORKSPACE_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;

export interface Session {
  workspace: string;
  token: string | null;
}

function stored(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null; // storage can be disabled; the dashboard still works for this page's lifetime
  }
}

function store(key: string, value: string | null): void {
  try {
    if (value) localStorage.setItem(key, value);
    else localStorage.removeItem(key);
  } catch {
    // see stored()
  }
}

export function loadSession(): Session {
  const workspace = stored(WORKSPACE_KEY);
  return {
    workspace: workspace && WORKSPACE_ID.test(workspace) ? workspace : DEFAULT_WORKSPACE,
    token: stored(TOKEN_KEY) || null,
  };
}

export function saveSession(session: Session): void {
  store(WORKSPACE_KEY, session.workspace);
  store(TOKEN_KEY, session.token);
}

/** HTTP headers that say who is calling: a token when there is one, else the open-mode workspace. */
export function sessionHeaders(session: Session): Record<string, string> {
  return session.token ? { authorization: `Bearer ${session.token}` } : { 'x-workspace': session.workspace };
}

/** graphql-ws connectionParams, the WebSocket twin of `sessionHeaders`. */
export function sessionConnectionParams(session: Session): Record<string, string> {
  return session.token ? { authorization: `Bearer ${session.token}` } : { workspace: session.workspace };
}
