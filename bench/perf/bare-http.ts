/** Starts bench/perf/bare-http.mjs on a database file and sends it statements over keep-alive HTTP. */
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { REPO_ROOT } from './util.ts';

export interface BareHttp {
  pid: number;
  query(sql: string, args: unknown[]): Promise<unknown[][]>;
  stop(): Promise<void>;
}

export async function startBareHttp(file: string): Promise<BareHttp> {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'bench', 'perf', 'bare-http.mjs'), file], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /listening (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`bare HTTP server exited with ${code}`)));
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    pid: child.pid!,
    query: (sql, args) =>
      new Promise((resolve, reject) => {
        const body = Buffer.from(JSON.stringify({ sql, args }));
        const req = request(
          {
            agent,
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/',
            headers: { 'content-type': 'application/json', 'content-length': body.byteLength },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              if (res.statusCode !== 200) reject(new Error(`bare HTTP ${res.statusCode}: ${text}`));
              else resolve(JSON.parse(text) as unknown[][]);
            });
          },
        );
        req.on('error', reject);
        req.end(body);
      }),
    stop: async () => {
      agent.destroy();
      child.kill('SIGTERM');
      await exited;
    },
  };
}
