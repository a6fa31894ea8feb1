import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Config, loadConfig } from '../../src/config.ts';
import { createDashboardHandler } from '../../src/server/dashboard.ts';
import { buildServer, type MiniSphereServer } from '../../src/server/server.ts';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * A real Mini-Sphere server that also serves the dashboard at `/`, over a temp data dir, and can
 * be stopped and started again on the same port and data (a restart, as the browser sees it).
 */
export interface DashboardServer {
  /** http://127.0.0.1:<port> */
  readonly origin: string;
  readonly port: number;
  readonly dataDir: string;
  /** POSTs a GraphQL operation (open mode, `x-workspace`) and returns `data`; throws on errors. */
  gql<T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>, workspace?: string): Promise<T>;
  /** Stops the server (WebSockets are closed with 1001); the data dir stays. */
  stop(): Promise<void>;
  /** Starts a fresh server on the same port over the same data dir. */
  start(): Promise<void>;
  /** Stops the server and removes the data dir. */
  close(): Promise<void>;
}

async function servesDashboard(origin: string): Promise<boolean> {
  const res = await fetch(`${origin}/`);
  return (await res.text()).includes('data-dashboard="mini-sphere"');
}

/**
 * What src/server.ts does once the dashboard is wired in: try the dashboard first, then Yoga.
 * Until then the test puts the dashboard in front of the server's own request listener; so it does
 * for a development build, which answers before the server's own dashboard.
 */
function putDashboardInFront(http: Server, development = false): void {
  const dashboard = createDashboardHandler({ development });
  const [server] = http.listeners('request') as Listener[];
  if (!server) throw new Error('the server has no request listener');
  http.removeAllListeners('request');
  http.on('request', async (req: IncomingMessage, res: ServerResponse) => {
    if (await dashboard(req, res)) return;
    server(req, res);
  });
}

/**
 * `development`: serve the dashboard built with its libraries' development checks, whose warnings a
 * test can then see on the console (the shipped build strips them).
 */
export async function startDashboardServer(
  overrides: Partial<Config> = {},
  { development = false }: { development?: boolean } = {},
): Promise<DashboardServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mini-sphere-e2e-'));
  let port = 0;
  let server: MiniSphereServer | null = null;

  const start = async () => {
    const config = loadConfig({}, { port, host: '127.0.0.1', dataDir, rateLimit: 0, logLevel: 'silent', ...overrides });
    server = buildServer(config);
    port = (await server.start()).port;
    if (development || !(await servesDashboard(`http://127.0.0.1:${port}`)))
      putDashboardInFront(server.http, development);
  };
  await start();

  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    port,
    dataDir,
    gql: async <T>(query: string, variables?: Record<string, unknown>, workspace = 'default') => {
      const res = await fetch(`${origin}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-workspace': workspace },
        body: JSON.stringify({ query, variables }),
      });
      const body = (await res.json()) as { data?: T; errors?: unknown[] };
      if (body.errors?.length || !body.data) throw new Error(`GraphQL errors: ${JSON.stringify(body.errors)}`);
      return body.data;
    },
    stop: async () => {
      await server?.stop();
      server = null;
    },
    start,
    close: async () => {
      try {
        await server?.stop();
      } finally {
        server = null;
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  };
}
