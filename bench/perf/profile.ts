/**
 * Summarizes a V8 .cpuprofile (node --cpu-prof): self time aggregated by function + url, and
 * by area (our src/ files, each node_modules package, node internals, GC, idle).
 *
 *   npx tsx bench/perf/profile.ts bench/results/profiles/<file>.cpuprofile [--top 25]
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { REPO_ROOT } from './util.ts';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface ProfileRow {
  name: string;
  ms: number;
  pct: number;
}

export interface ProfileSummary {
  file: string;
  totalMs: number;
  /** Time not idle: what the server spent working. */
  busyMs: number;
  functions: ProfileRow[];
  areas: ProfileRow[];
}

function shortUrl(url: string): string {
  if (!url) return '';
  let path = url;
  if (url.startsWith('file://')) {
    try {
      path = fileURLToPath(url);
    } catch {}
  }
  const nm = path.lastIndexOf('node_modules/');
  if (nm >= 0) return path.slice(nm + 'node_modules/'.length);
  return path.startsWith(REPO_ROOT) ? relative(REPO_ROOT, path) : path;
}

function areaOf(frame: CallFrame): string {
  const name = frame.functionName;
  if (name === '(idle)') return '(idle)';
  if (name === '(garbage collector)') return '(garbage collector)';
  if (name === '(program)') return '(program: native, incl. synchronous SQLite)';
  const url = shortUrl(frame.url);
  if (!url) return '(native / builtin)';
  if (url.startsWith('node:')) return 'node internals';
  if (url.startsWith('src/')) return url.split('/').slice(0, 2).join('/');
  if (!url.startsWith('/')) {
    const parts = url.split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  return url;
}

/**
 * `window` keeps only the samples taken between `fromMs` and `toMs` after the profile started
 * (to leave out start-up and shutdown).
 */
export function summarizeProfile(file: string, top = 25, window?: { fromMs: number; toMs: number }): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  // timeDeltas[i] is the time between sample i-1 and sample i; charge it to sample i.
  let at = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = Math.max(0, profile.timeDeltas[i] ?? 0);
    at += delta;
    if (window && (at < window.fromMs * 1000 || at > window.toMs * 1000)) continue;
    const id = profile.samples[i]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
  }
  const fn = new Map<string, number>();
  const area = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    total += us;
    if (frame.functionName === '(idle)') idle += us;
    const url = shortUrl(frame.url);
    const key = `${frame.functionName || '(anonymous)'}${url ? ` ${url}:${frame.lineNumber + 1}` : ''}`;
    fn.set(key, (fn.get(key) ?? 0) + us);
    const a = areaOf(frame);
    area.set(a, (area.get(a) ?? 0) + us);
  }
  const busy = total - idle;
  const rows = (m: Map<string, number>, n: number) =>
    [...m]
      .filter(([k]) => k !== '(idle)')
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, us]) => ({ name, ms: us / 1000, pct: busy > 0 ? (100 * us) / busy : 0 }));
  return { file, totalMs: total / 1000, busyMs: busy / 1000, functions: rows(fn, top), areas: rows(area, 15) };
}

export function formatProfile(s: ProfileSummary, title: string): string {
  const lines = [
    `${title}: ${relative(REPO_ROOT, s.file)}`,
    `  profiled ${(s.totalMs / 1000).toFixed(1)} s, busy (not idle) ${(s.busyMs / 1000).toFixed(1)} s; shares below are of busy time`,
    '  top self time by area:',
    ...s.areas.map((r) => `    ${r.pct.toFixed(1).padStart(5)}%  ${r.ms.toFixed(0).padStart(7)} ms  ${r.name}`),
    '  top self time by function:',
    ...s.functions.map((r) => `    ${r.pct.toFixed(1).padStart(5)}%  ${r.ms.toFixed(0).padStart(7)} ms  ${r.name}`),
  ];
  return lines.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values, positionals } = parseArgs({
    options: { top: { type: 'string', default: '25' } },
    allowPositionals: true,
  });
  for (const file of positionals) console.log(formatProfile(summarizeProfile(file, Number(values.top)), 'profile'));
}
