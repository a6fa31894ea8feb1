import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROCESS_START_BUDGET } from './budget.ts';

const CLI = fileURLToPath(new URL('../../bin/mini-sphere.js', import.meta.url));

export interface ServerProcess {
  proc: ChildProcess;
  url: string;
  wsUrl: string;
  output(): string;
  /** Resolves with the exit code (or signal) once the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs `mini-sphere serve` as a real child process and waits until it listens. */
export async function spawnServer(env: Record<string, string>): Promise<ServerProcess> {
  const proc = spawn(process.execPath, [CLI, 'serve'], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout?.on('data', (c: Buffer) => {
    out += c.toString();
  });
  proc.stderr?.on('data', (c: Buffer) => {
    out += c.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`server did not start in ${PROCESS_START_BUDGET} ms:\n${out}`));
    }, PROCESS_START_BUDGET);
    const onData = () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    // The banner, with its "listening on" line, goes to stderr; the JSON log to stdout.
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', onData);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`server exited before listening:\n${out}`));
    });
  });
  return { proc, url, wsUrl: url.replace(/^http/, 'ws'), output: () => out, exited };
}

/** A server process on a data directory of its own; `stop` ends it and removes the directory. */
export interface ServerInTempDir extends ServerProcess {
  dataDir: string;
  stop(): Promise<void>;
}

/** `mini-sphere serve` on a fresh data directory (`prefix` names it), quiet unless `env` says otherwise. */
export async function spawnServerInTempDir(prefix: string, env: Record<string, string> = {}): Promise<ServerInTempDir> {
  const dataDir = await mkdtemp(join(tmpdir(), `mini-sphere-${prefix}-`));
  const server = await spawnServer({ SPHERE_DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env });
  return {
    ...server,
    dataDir,
    async stop() {
      server.proc.kill('SIGTERM');
      await server.exited;
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
