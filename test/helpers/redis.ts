import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { PROCESS_START_BUDGET } from './budget.ts';

/** A free loopback port, picked by the OS. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** Stops and starts it again on the same port (pub/sub messages in between are lost). */
  restart(): Promise<void>;
}

async function waitForLine(proc: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${seen}`)), timeoutMs);
    proc.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (pattern.test(seen)) {
        clearTimeout(timer);
        resolve();
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}: ${seen}`));
    });
  });
}

/** A real redis-server on a free loopback port, without persistence. */
export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  let proc: ChildProcess | null = null;
  const launch = async () => {
    proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await waitForLine(proc, /Ready to accept connections/, PROCESS_START_BUDGET);
  };
  const halt = async () => {
    const p = proc;
    proc = null;
    if (!p || p.exitCode !== null) return;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGKILL');
    await exited;
  };
  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: halt,
    restart: async () => {
      await halt();
      await launch();
    },
  };
}
