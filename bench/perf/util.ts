/**
 * Shared pieces of the performance benchmark: the server child process, a keep-alive HTTP
 * GraphQL client, process memory readings and latency statistics.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CLI = join(REPO_ROOT, 'bin', 'mini-sphere.js');

// ---------------------------------------------------------------------------------------------
// Statistics

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}

export interface LatencySummary {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  max: number;
}

export function summarize(samples: readonly number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((s, v) => s + v, 0) / Math.max(1, sorted.length);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    mean,
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

/** Runs `work` over `items` with at most `limit` in flight. */
export async function pool<T>(items: readonly T[], limit: number, work: (item: T, i: number) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await work(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Event-loop delay as the server's /metrics reports it, in ms. */
export interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
}

/**
 * The server's event-loop delay since the previous scrape (sphere_event_loop_delay_seconds;
 * each scrape starts a new interval, so scrape once before a phase and once after it).
 */
export async function scrapeLoopDelay(graphqlUrl: string): Promise<LoopDelay> {
  // A kept-alive socket the server closed as idle (a long in-process phase ran meanwhile)
  // fails the fetch before it reaches the server: sending again is safe.
  const get = () => fetch(new URL('/metrics', graphqlUrl)).then((r) => r.text());
  const text = await get().catch(get);
  const read = (quantile: string) =>
    1000 *
    Number(new RegExp(`^sphere_event_loop_delay_seconds\\{quantile="${quantile}"\\} (\\S+)$`, 'm').exec(text)?.[1]);
  return { p50: read('0.5'), p99: read('0.99'), max: read('1') };
}

// ---------------------------------------------------------------------------------------------
// Process memory

export interface ProcMemory {
  rssMb: number;
  hwmMb: number;
}

/** VmRSS and VmHWM of a process, in MiB (Linux /proc). */
export function procMemory(pid: number): ProcMemory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 };
}

/** CPU time a process has used so far (user + system, all its threads), in ms; NaN without /proc. */
export function procCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, in clock ticks (100 a second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

// ---------------------------------------------------------------------------------------------
// GraphQL over HTTP with a keep-alive agent (fetch's pool is small and slow to reuse here)

export interface GqlClient {
  url: string;
  request<T>(query: string, variables?: Record<string, unknown>): Promise<T>;
  close(): void;
}

export function gqlClient(url: string, workspace: string, maxSockets = 64): GqlClient {
  const agent = new Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
  const target = new URL(url);
  return {
    url,
    close: () => agent.destroy(),
    request: <T>(query: string, variables: Record<string, unknown> = {}) => send<T>(query, variables, true),
  };

  function send<T>(query: string, variables: Record<string, unknown>, retry: boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const body = Buffer.from(JSON.stringify({ query, variables }));
      const req = request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'content-length': body.byteLength,
            'x-workspace': workspace,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            try {
              const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
                data?: T;
                errors?: { message: string; extensions?: { code?: string } }[];
              };
              if (parsed.errors?.length || !parsed.data) {
                const msg = parsed.errors?.map((e) => `${e.extensions?.code ?? ''} ${e.message}`).join('; ');
                reject(new Error(`GraphQL error (HTTP ${res.statusCode}): ${msg ?? 'no data'}`));
              } else {
                resolve(parsed.data);
              }
            } catch (error) {
              reject(error);
            }
          });
          res.on('error', reject);
        },
      );
      req.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive socket that the server closed as idle (keepAliveTimeout) just as it was
        // reused: nothing reached the server, so sending again is safe (Node's documented pattern).
        // Depending on the timing the write fails with EPIPE instead of ECONNRESET.
        if (retry && req.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) {
          send<T>(query, variables, false).then(resolve, reject);
        } else {
          reject(error);
        }
      });
      req.end(body);
    });
  }
}

// ---------------------------------------------------------------------------------------------
// The server, as a child process (so that its RSS is its own)

/** The node flags on the bin file's `#!/usr/bin/env -S node ...` line. */
function launchFlags(cli: string): string[] {
  const first = readFileSync(cli, 'utf8').split('\n', 1)[0] ?? '';
  const words = first.replace(/^#!\S+\s+(-S\s+)?/, '').split(/\s+/);
  return words[0]?.endsWith('node') ? words.slice(1).filter(Boolean) : [];
}

export interface ServerChild {
  pid: number;
  url: string;
  port: number;
  child: ChildProcess;
  logFile: string;
  /** SIGTERM, then wait for exit (the server finishes in-flight writes; --cpu-prof writes its file). */
  stop(): Promise<number | null>;
}

export interface StartOptions {
  dataDir: string;
  logFile: string;
  /** Extra node flags, e.g. ['--cpu-prof', '--cpu-prof-dir=…']. */
  nodeFlags?: string[];
  env?: Record<string, string>;
  /** Another checkout of the repository to run the server from (bench/ab.ts); default this one. */
  root?: string;
}

/**
 * Starts `mini-sphere serve` as users do (with the node options of the bin file's #! line,
 * plus any extra flags such as profiling) on a free loopback port and waits until it
 * listens.
 */
export async function startServer(opts: StartOptions): Promise<ServerChild> {
  const out = openSync(opts.logFile, 'w');
  const root = opts.root ?? REPO_ROOT;
  const cli = join(root, 'bin', 'mini-sphere.js');
  const child = spawn(process.execPath, [...launchFlags(cli), ...(opts.nodeFlags ?? []), cli, 'serve'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      SPHERE_DATA_DIR: opts.dataDir,
      SPHERE_PLAYGROUND: 'on',
      // The fan-out phase holds thousands of sockets from this one loopback client.
      SPHERE_MAX_SOCKETS_PER_CLIENT: '100000',
      ...opts.env,
    },
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  let url: string | null = null;
  while (!url) {
    if (child.exitCode !== null) {
      throw new Error(`server exited with ${child.exitCode}:\n${readFileSync(opts.logFile, 'utf8').slice(-2000)}`);
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not start within 60 s:\n${readFileSync(opts.logFile, 'utf8').slice(-2000)}`);
    }
    url = /listening on (http:\/\/\S+)/.exec(readFileSync(opts.logFile, 'utf8'))?.[1] ?? null;
    if (!url) await sleep(50);
  }
  return {
    pid: child.pid!,
    url,
    port: Number(new URL(url).port),
    child,
    logFile: opts.logFile,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Commands under /usr/bin/time -v (or polling VmHWM when it is missing)

export interface TimedRun {
  code: number | null;
  seconds: number;
  peakRssMb: number;
  stdout: string;
  stderr: string;
}

export async function timedCommand(args: string[], env: Record<string, string>): Promise<TimedRun> {
  let hasTime = false;
  try {
    readFileSync('/usr/bin/time');
    hasTime = true;
  } catch {}
  const started = performance.now();
  const [cmd, argv] = hasTime ? ['/usr/bin/time', ['-v', process.execPath, ...args]] : [process.execPath, args];
  const child = spawn(cmd, argv, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  let polledPeak = 0;
  const poll = hasTime
    ? null
    : setInterval(() => {
        try {
          polledPeak = Math.max(polledPeak, procMemory(child.pid!).hwmMb);
        } catch {}
      }, 50);
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  if (poll) clearInterval(poll);
  const seconds = (performance.now() - started) / 1000;
  const peak = hasTime
    ? Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1] ?? Number.NaN) / 1024
    : polledPeak;
  return { code, seconds, peakRssMb: peak, stdout, stderr };
}
