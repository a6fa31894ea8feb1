import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drizzleFor, locateWorkspace, openClient } from '../../src/db/client.ts';
import type { EntryRow } from '../../src/db/schema.ts';
import { LruCache, SeenBefore } from '../../src/retrieval/lru.ts';
import { entryStems, stemsCacheFor } from '../../src/retrieval/pipeline.ts';
import { RANKING_POLICY } from '../../src/retrieval/policy.ts';
import {
  buildMatchExpression,
  capWord,
  contentStems,
  lightStem,
  stemCache,
  tokenize,
} from '../../src/retrieval/query.ts';
import { makeSnippet } from '../../src/retrieval/snippet.ts';

const { windowChars, wordMaxChars, stemsMax } = RANKING_POLICY.text;

/** What tokenize computed before it read text in bounded pieces: the whole text, folded at once. */
const wholeText = (text: string) =>
  text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu) ?? [];

describe('tokenize on hostile text', () => {
  it('caps a long word at wordMaxChars and reads no further into it', () => {
    expect(tokenize(`yyy ${'y'.repeat(99_996)}`)).toEqual(['yyy', 'y'.repeat(wordMaxChars)]);
    expect(tokenize(`Yyy ${'Ab'.repeat(40)} tail`)).toEqual(['yyy', capWord('ab'.repeat(40)), 'tail']);
  });

  it('normalizes no more than its window, however much a character expands', () => {
    // U+FDFA is one letter that NFKD writes as eighteen characters in four words.
    const words = tokenize(`yyy ${'\uFDFA'.repeat(99_990)}`);
    expect(words[0]).toBe('yyy');
    expect(words.join('').length).toBeLessThanOrEqual(2 * windowChars);
    const spaced = tokenize('\uFDFA '.repeat(50_000));
    expect(spaced.join(' ').length).toBeLessThanOrEqual(2 * windowChars);
    for (const w of [...words, ...spaced]) expect(w.length).toBeLessThanOrEqual(wordMaxChars);
  });

  it('reads only the head of a text of many distinct words', () => {
    const text = Array.from({ length: 20_000 }, (_, i) => `w${i.toString(36)}`).join(' ');
    const words = tokenize(text);
    expect(words[0]).toBe('w0');
    expect(words.length).toBeLessThan(windowChars);
    expect(contentStems(text).size).toBeLessThanOrEqual(stemsMax);
  });

  it('never splits a surrogate pair when it cuts a word', () => {
    const word = `${'a'.repeat(wordMaxChars - 1)}𝐀𝐀`;
    expect(capWord(word)).toBe('a'.repeat(wordMaxChars - 1));
    expect(capWord('𝐀'.repeat(wordMaxChars)).length).toBe(wordMaxChars);
  });
});

describe('tokenize on ordinary text', () => {
  // Inside the window, and with no word over the cap, reading in pieces changes nothing.
  const texts = [
    'Café "NEAR(x)" col:y   v2.0 — naïve résumé, Ærø and straße',
    'We deployed 𝐕𝐞𝐫𝐬𝐢𝐨𝐧 2 on Friday; ＦＵＬＬＷＩＤＴＨ and ﬁne ligatures ½ ① too.',
    '我们今天部署了新版本，然后回滚了。Ελληνικά ΟΔΟΣ κείμενο. Русский текст здесь.',
    `a,b,c,${Array.from({ length: 300 }, (_, i) => `k${i}`).join(',')},end`,
    `${'word '.repeat(800)}${'inline-hyphenated/path.segments '.repeat(100)}`,
    `${'x'.repeat(wordMaxChars)} ${'\t\n'.repeat(200)} after blank runs`,
  ];
  for (const [i, text] of texts.entries()) {
    it(`reads text ${i + 1} exactly as folding it whole does`, () => {
      expect(text.length).toBeLessThan(windowChars);
      expect(tokenize(text)).toEqual(wholeText(text));
    });
  }
});

describe('buildMatchExpression', () => {
  it('searches a capped word as a prefix, so the whole word still matches', () => {
    const [long] = tokenize('z'.repeat(100));
    expect(buildMatchExpression(['deploy', long!])).toBe(`"deploy" OR "${'z'.repeat(wordMaxChars)}"*`);
  });
});

describe('snippets over hostile text', () => {
  it('anchors on a match in the window without folding the whole word that follows', () => {
    const content = `yyy ${'\uFDFA'.repeat(99_990)}`;
    const started = performance.now();
    for (let i = 0; i < 50; i++) expect(makeSnippet(content, new Set(['yyy']), 400).text.startsWith('yyy')).toBe(true);
    // Folding that word whole takes about 10 ms a time, half a second for 50 hits.
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe('LruCache', () => {
  it('forgets keys nobody used first, and gives a used key a second chance', () => {
    const c = new LruCache<string, number>(3);
    c.set('a', 1);
    c.set('b', 2);
    c.set('c', 3);
    expect(c.get('a')).toBe(1);
    c.set('d', 4);
    // 'a' was used, so 'b' (never used) went; 'a' moved to the young end.
    expect([c.has('a'), c.has('b'), c.has('c'), c.has('d')]).toEqual([true, false, true, true]);
    c.set('e', 5);
    // Nobody used 'c' since: it is the oldest and goes.
    expect([c.has('a'), c.has('c'), c.has('d'), c.has('e')]).toEqual([true, false, true, true]);
    c.set('f', 6);
    c.set('g', 7);
    // Its second chance spent, 'a' goes like any other unused key.
    expect([c.has('a'), c.has('d'), c.has('e'), c.has('f'), c.has('g')]).toEqual([false, false, true, true, true]);
    expect(c.size).toBe(3);
  });

  it('holds no more weight than its bound', () => {
    const c = new LruCache<string, string>(10, (v) => v.length);
    c.set('a', 'xxxx');
    c.set('b', 'xxxx');
    c.set('c', 'xxxx');
    expect([c.has('a'), c.has('b'), c.has('c'), c.weight]).toEqual([false, true, true, 8]);
    c.set('b', 'x');
    expect(c.weight).toBe(5);
  });
});

describe('the shared stem cache', () => {
  it('keeps the words in use while another workspace streams new ones through', () => {
    // One workspace's recalls keep using a few words; another's bring a cache-full of new ones.
    const kept = ['painting', 'deploy', 'friday'];
    for (const w of kept) lightStem(w);
    for (let i = 0; i < 2 * stemCache.max; i++) {
      lightStem(`flood${i}`);
      if (i % 1_000 === 0) for (const w of kept) lightStem(w);
    }
    for (const w of kept) expect(stemCache.has(w)).toBe(true);
    expect(stemCache.size).toBe(stemCache.max);
    expect(lightStem('painting')).toBe('paint');
  });
});

describe('SeenBefore', () => {
  const keys = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

  it('says a key is new the first time and seen the second, with room enough', () => {
    const seen = new SeenBefore(65_536);
    const ids = keys('entry', 100);
    expect(ids.map((k) => seen.again(k))).toEqual(ids.map(() => false));
    expect(ids.map((k) => seen.again(k))).toEqual(ids.map(() => true));
  });

  it('forgets a key once others took its slot, and never holds more than its slots', () => {
    const seen = new SeenBefore(1_000); // 1024 slots
    seen.again('first');
    for (const k of keys('other', 20_000)) seen.again(k);
    expect(seen.again('first')).toBe(false);
    // 100 keys in 1024 slots: most keep theirs, a few share one with another.
    const small = new SeenBefore(1_024);
    const ids = keys('entry', 100);
    for (const k of ids) small.again(k);
    const kept = ids.filter((k) => small.again(k)).length;
    expect(kept).toBeGreaterThanOrEqual(90);
    expect(kept).toBeLessThanOrEqual(100);
  });
});

describe('the entry stems cache', () => {
  let dir: string;
  const closers: (() => void)[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mini-sphere-stems-'));
  });
  afterAll(async () => {
    for (const close of closers) close();
    await rm(dir, { recursive: true, force: true });
  });
  const open = async (workspace: string) => {
    const client = await openClient(locateWorkspace(workspace, { dataDir: dir, dbUrl: null, dbAuthToken: null }));
    closers.push(() => client.close());
    return drizzleFor(client);
  };
  const entry = (id: string, content: string) => ({ id, content, contentHash: `h-${content}` }) as EntryRow;

  it('is per workspace: one filling its own does not evict another’s', async () => {
    const quiet = await open('quiet');
    const busy = await open('busy');
    const mine = entry('quiet-1', 'the garden gate needs oiling');
    entryStems(quiet, mine);
    const stems = entryStems(quiet, mine);
    expect(stems).toEqual(new Set(['garden', 'gat', 'need', 'oil']));

    // Long entries, each asked for twice, fill the busy workspace's cache until it starts to forget its own.
    const { kept } = stemsCacheFor(busy);
    const long = (i: number) => Array.from({ length: 1_500 }, (_, j) => `w${i}x${j}`).join(' ');
    let n = 0;
    while (n === 0 || kept.has('busy-0')) {
      const e = entry(`busy-${n}`, long(n++));
      entryStems(busy, e);
      entryStems(busy, e);
    }
    expect(n).toBeGreaterThan(10);
    expect(kept.weight).toBeLessThanOrEqual(kept.max);

    expect(stemsCacheFor(quiet).kept.has('quiet-1')).toBe(true);
    expect(entryStems(quiet, mine)).toBe(stems);
  });

  it('keeps an entry only once it has come up before: entries asked for once push out nothing', async () => {
    const db = await open('once');
    const { kept } = stemsCacheFor(db);
    const twice = entry('twice', 'the deploy failed on friday');
    const first = entryStems(db, twice);
    expect(kept.has('twice')).toBe(false);
    const second = entryStems(db, twice);
    expect(second).toEqual(first);
    expect(kept.has('twice')).toBe(true);
    expect(entryStems(db, twice)).toBe(second);
    // A thousand entries seen once each: computed every time, kept never.
    for (let i = 0; i < 1_000; i++) entryStems(db, entry(`once-${i}`, `entry number ${i} about something`));
    expect(kept.size).toBe(1);
    expect(entryStems(db, twice)).toBe(second);
  });

  it('recomputes when the content changed under the same id', async () => {
    const db = await open('edited');
    entryStems(db, entry('e1', 'first draft'));
    const before = entryStems(db, entry('e1', 'first draft'));
    expect(stemsCacheFor(db).kept.has('e1')).toBe(true);
    const after = entryStems(db, entry('e1', 'second version'));
    expect(before).toEqual(new Set(['first', 'draft']));
    expect(after).toEqual(new Set(['second', 'version']));
  });
});
