/**
 * Every relative link and anchor in README.md and docs/ leads somewhere: the file exists, and a
 * `#fragment` names a heading of the page it points to, slugged as GitHub slugs headings.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOC_PAGES, fencedLines, REPO_ROOT, readPage } from '../helpers/docs.ts';

/** GitHub's heading anchors: lower-cased, punctuation dropped, spaces to hyphens, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const fenced = fencedLines(markdown);
  markdown.split('\n').forEach((line, i) => {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading || fenced.has(i)) return;
    const text = heading[1]!
      .replace(/`([^`]*)`/g, '$1')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  });
  return anchors;
}

interface Link {
  line: number;
  target: string;
}

/** The links of a page outside code blocks and code spans, external ones left out. */
function relativeLinks(markdown: string): Link[] {
  const fenced = fencedLines(markdown);
  const links: Link[] = [];
  markdown.split('\n').forEach((line, i) => {
    if (fenced.has(i)) return;
    const prose = line.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      links.push({ line: i + 1, target });
    }
  });
  return links;
}

/** Why a link of `page` does not resolve, or null when it does. */
function brokenLink(page: string, target: string): string | null {
  const [path, fragment] = target.split('#', 2) as [string, string | undefined];
  const file = path ? join(dirname(join(REPO_ROOT, page)), decodeURIComponent(path)) : join(REPO_ROOT, page);
  if (!existsSync(file)) return `${relative(REPO_ROOT, file)} does not exist`;
  if (fragment === undefined) return null;
  if (statSync(file).isDirectory() || !file.endsWith('.md'))
    return `#${fragment} points into a file that is not Markdown`;
  const anchors = headingAnchors(readPage(relative(REPO_ROOT, file)));
  return anchors.has(fragment) ? null : `${relative(REPO_ROOT, file)} has no heading #${fragment}`;
}

describe('links in README.md and docs/', () => {
  it('slug headings as GitHub does', () => {
    const anchors = headingAnchors(
      '# Mini-Sphere\n## Hosted libSQL (Turso)\n## `npm test` timings\n```sh\n# not a heading\n```\n## Caps\n## Caps\n',
    );
    expect([...anchors]).toEqual(['mini-sphere', 'hosted-libsql-turso', 'npm-test-timings', 'caps', 'caps-1']);
  });

  it('find relative links outside code, and only those', () => {
    const links = relativeLinks(
      'See [api](docs/api.md#errors) and [web](https://example.com) or `[x](nope.md)`.\n```md\n[y](nope.md)\n```\n',
    );
    expect(links).toEqual([{ line: 1, target: 'docs/api.md#errors' }]);
    expect(brokenLink('README.md', 'docs/nope.md')).toMatch(/does not exist/);
    expect(brokenLink('README.md', '#no-such-heading')).toMatch(/no heading/);
  });

  for (const page of DOC_PAGES) {
    it(`${page}: every relative link and anchor resolves`, () => {
      const broken = relativeLinks(readPage(page)).flatMap(({ line, target }) => {
        const why = brokenLink(page, target);
        return why ? [`line ${line}: ${target}: ${why}`] : [];
      });
      expect(broken).toEqual([]);
    });
  }
});

describe("README.md's configuration table", () => {
  it('names every variable src/config.ts reads', () => {
    const config = readPage('src/config.ts');
    const read = [...config.matchAll(/^ {2}([A-Z][A-Z0-9_]+): optional/gm)].map((m) => m[1]!);
    expect(read.length).toBeGreaterThan(10);
    const readme = readPage('README.md');
    const table = readme.slice(
      readme.indexOf('## Configuration'),
      readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1),
    );
    const named = new Set([...table.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!));
    expect(read.filter((v) => !named.has(v))).toEqual([]);
  });
});
