/**
 * CLI start-up: wall time of whole `node bin/mini-sphere.js …` processes (help, token list,
 * check on a small workspace) against `node -e ''` measured in the same run, interleaved so
 * that load on the machine weighs on every command alike. Median of `runs` each.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, REPO_ROOT } from './util.ts';

export interface StartupResult {
  runs: number;
  /** Median milliseconds per command; `node` is `node -e ''`, the floor. */
  medianMs: Record<StartupCommand, number>;
}

export type StartupCommand = 'node' | 'help' | 'tokenList' | 'check';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? Number.NaN) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};

export function measureStartup(runs = 10): StartupResult {
  const dataDir = mkdtempSync(join(tmpdir(), 'mini-sphere-startup-'));
  const env = { ...process.env, SPHERE_DATA_DIR: dataDir };
  const run = (args: string[]) => {
    const t0 = performance.now();
    execFileSync(process.execPath, args, { cwd: REPO_ROOT, env, stdio: 'ignore' });
    return performance.now() - t0;
  };
  const commands: Record<StartupCommand, string[]> = {
    node: ['-e', ''],
    help: [CLI, '--help'],
    tokenList: [CLI, 'token', 'list'],
    check: [CLI, 'check', '--workspace', 'small'],
  };
  try {
    // Also (re)builds the bundle when the sources are newer, so no run below pays for that.
    run([CLI, 'migrate', '--workspace', 'small', '--create']);
    const samples: Record<StartupCommand, number[]> = { node: [], help: [], tokenList: [], check: [] };
    for (let i = 0; i < runs; i++) {
      for (const [name, args] of Object.entries(commands) as [StartupCommand, string[]][]) {
        samples[name].push(run(args));
      }
    }
    const medianMs = Object.fromEntries(Object.entries(samples).map(([name, xs]) => [name, median(xs)])) as Record<
      StartupCommand,
      number
    >;
    return { runs, medianMs };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Table rows: command, median ms, ratio to `node -e ''`. */
export function startupRows(r: StartupResult): [string, string, string][] {
  const label: Record<StartupCommand, string> = {
    node: "node -e ''",
    help: 'mini-sphere --help',
    tokenList: 'mini-sphere token list',
    check: 'mini-sphere check (small workspace)',
  };
  return (Object.keys(label) as StartupCommand[]).map((name) => [
    label[name],
    r.medianMs[name].toFixed(0),
    `${(r.medianMs[name] / r.medianMs.node).toFixed(2)}×`,
  ]);
}
