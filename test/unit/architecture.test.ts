import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/**
 * Which parts of src/ each part may import. Imports point down only:
 * contract ← db ← memory / retrieval / events ← workspaces ← ops / graphql ← server / cli.
 * A part may always import its own files; `config` is the one reader of the environment.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  contract: [],
  config: ['contract'],
  db: ['contract'],
  events: ['contract', 'db'],
  memory: ['contract', 'db', 'events'],
  retrieval: ['contract', 'db', 'memory'],
  workspaces: ['contract', 'db', 'events', 'memory'],
  ops: ['contract', 'config', 'db', 'events', 'memory', 'retrieval', 'workspaces'],
  graphql: ['contract', 'db', 'events', 'memory', 'retrieval', 'workspaces'],
  server: ['contract', 'config', 'db', 'events', 'memory', 'retrieval', 'workspaces', 'graphql'],
  cli: ['contract', 'config', 'db', 'events', 'memory', 'retrieval', 'workspaces', 'ops', 'server'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The part of src/ a file belongs to: its top folder, or its name for a file at the top. */
function partOf(file: string): string {
  const [top = ''] = relative(SRC, file).split('/');
  return top.replace(/\.ts$/, '');
}

/** Every relative module a file's text imports or re-exports, statically or dynamically. */
function importsOf(file: string, text: string): string[] {
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'([^']+)'/gms),
    ...text.matchAll(/import\(\s*'([^']+)'\s*\)/g),
  ].map((m) => m[1] ?? '');
  return specifiers.filter((s) => s.startsWith('.')).map((s) => resolve(dirname(file), s));
}

/** `file imports target`, for every import that crosses a rule of MAY_IMPORT. */
function layerViolations(files: readonly { file: string; text: string }[]): string[] {
  const out: string[] = [];
  for (const { file, text } of files) {
    const from = partOf(file);
    const allowed = MAY_IMPORT[from];
    for (const target of importsOf(file, text)) {
      if (!target.startsWith(SRC)) continue;
      const to = partOf(target);
      if (to === from) continue;
      if (!allowed?.includes(to)) out.push(`${relative(SRC, file)} imports ${relative(SRC, target)}`);
    }
  }
  return out;
}

describe('the import rules of src/', () => {
  const files = sourceFiles(SRC);

  it('knows every part of src/', () => {
    const unknown = [...new Set(files.map(partOf))].filter((p) => !(p in MAY_IMPORT));
    expect(unknown).toEqual([]);
  });

  it('imports point down only: contract imports nothing of ours, no domain part imports graphql or server', () => {
    expect(layerViolations(files.map((file) => ({ file, text: readFileSync(file, 'utf8') })))).toEqual([]);
  });

  it('fails on a violating import', () => {
    const probe = (rel: string, text: string) => layerViolations([{ file: join(SRC, rel), text }]);
    expect(probe('db/x.ts', "import { a } from '../memory/capture.ts';")).toHaveLength(1);
    expect(probe('contract/x.ts', "import type { A } from '../db/client.ts';")).toHaveLength(1);
    expect(probe('events/x.ts', "const m = await import('../graphql/errors.ts');")).toHaveLength(1);
    expect(probe('graphql/x.ts', "import { a } from '../memory/capture.ts';")).toHaveLength(0);
  });
});
