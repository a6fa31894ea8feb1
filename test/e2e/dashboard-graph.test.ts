import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, chromiumAvailable, launchBrowser } from './browser.ts';
import { type DashboardServer, startDashboardServer } from './dashboard-server.ts';
import { clashes, labelBoxes } from './graph-labels.ts';
import { type SeededWorkspace, seedWorkspace } from './seed-workspace.ts';

/** The graph is explorable in place on a workspace of a few hundred entries. */

const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };
const SCREENSHOTS = resolve('test-results/screenshots');

const nodeCount = (page: Page) => page.evaluate<number>('window.__cy ? window.__cy.nodes().length : 0');
const visibleCount = (page: Page) => page.evaluate<number>('window.__cy.nodes(":visible").length');

/** Waits until the graph is drawn and its layout has settled (positions no longer move). */
async function waitForGraph(page: Page): Promise<void> {
  await expect.poll(() => nodeCount(page), { timeout: 15_000 }).toBeGreaterThan(0);
  await expect
    .poll(() => page.evaluate<number>('Number(window.__cy.scratch("settled") ?? 0)'), { timeout: 15_000 })
    .toBeGreaterThan(0);
}

describe.skipIf(!chromiumAvailable())('the explorable graph (chromium)', () => {
  let srv: DashboardServer;
  let browser: Browser;
  let seeded: SeededWorkspace;

  beforeAll(async () => {
    [srv, browser] = await Promise.all([startDashboardServer(), launchBrowser()]);
    seeded = await seedWorkspace(srv, 'e2e-graph');
    await mkdir(SCREENSHOTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await srv?.close();
  });

  const warnings = new Map<Page, string[]>();
  /** Console errors, uncaught exceptions and console warnings of a page: there must be none. */
  const problems = (page: Page) => [...browser.errorsOf(page), ...(warnings.get(page) ?? [])];

  async function open(route: string, viewport = DESKTOP): Promise<Page> {
    const page = await browser.newPage(viewport);
    const seen: string[] = [];
    warnings.set(page, seen);
    page.on('console', (msg) => {
      if (msg.type() === 'warning') seen.push(`console warning: ${msg.text()}`);
    });
    await page.addInitScript((ws) => localStorage.setItem('mini-sphere.workspace', ws), seeded.workspace);
    await page.goto(`${srv.origin}/${route}`);
    await page.locator('#connection[data-state="live"]').waitFor({ timeout: 10_000 });
    return page;
  }

  it('expands a node in place, keeps the view, and draws labels that never overlap at 50 nodes', async () => {
    const page = await open(`#/graph?ids=${seeded.decisions[3]}&hops=1`);
    await waitForGraph(page);
    const before = await nodeCount(page);
    const view = () =>
      page.evaluate<{ zoom: number; x: number; y: number }>(
        '({ zoom: window.__cy.zoom(), x: window.__cy.pan().x, y: window.__cy.pan().y })',
      );
    const kept = await view();
    const ids = await page.evaluate<string[]>('window.__cy.nodes().map((n) => n.id())');

    // Double-click the project node: its neighbours join the drawing, nothing drawn goes away.
    const target = seeded.projects[3] as string;
    expect(ids).toContain(target);
    await page.locator('#graph-canvas').scrollIntoViewIfNeeded();
    const doubleClickTarget = async () => {
      const at = await page.evaluate<{ x: number; y: number }>(
        `window.__cy.getElementById(${JSON.stringify(target)}).renderedPosition()`,
      );
      const box = await page.locator('#graph-canvas').boundingBox();
      await page.mouse.dblclick((box?.x ?? 0) + at.x, (box?.y ?? 0) + at.y);
    };
    // A double click can land while the view is still drawing and find no node (2 runs in 4
    // missed): one that expanded nothing is repeated where the node is now. Expanding adds only.
    await expect
      .poll(
        async () => {
          const count = await nodeCount(page);
          if (count <= before) await doubleClickTarget();
          return count;
        },
        { timeout: 10_000, interval: 1_000 },
      )
      .toBeGreaterThan(before);
    const after = await page.evaluate<string[]>('window.__cy.nodes().map((n) => n.id())');
    for (const id of ids) expect(after).toContain(id);
    expect(await view()).toEqual(kept);
    await page.locator('#graph-note', { hasText: 'Added' }).waitFor({ timeout: 5_000 });

    // The hub: the server's cut leaves some out; the budget stops at 50; raising it draws more.
    await page.goto(`${srv.origin}/#/graph?ids=${seeded.hub}&hops=2`);
    await waitForGraph(page);
    expect(await page.locator('#graph-summary').textContent()).toContain('Load more');
    // Each "Load more" expands the entries furthest out, until the budget of 50 is reached.
    const note = page.locator('#graph-note');
    for (let i = 0; i < 10 && !(await note.textContent())?.includes('node budget of 50 is reached'); i++) {
      const count = await nodeCount(page);
      await page.getByRole('button', { name: 'Load more' }).click();
      await expect
        .poll(async () => (await nodeCount(page)) > count || (await note.textContent())?.includes('reached'), {
          timeout: 10_000,
        })
        .toBe(true);
    }
    expect(await note.textContent()).toContain('node budget of 50 is reached');
    expect(await nodeCount(page)).toBe(50);

    // 50 nodes: the labels drawn do not overlap, and there are labels. How many fit depends on
    // the force layout, which is not the same from run to run (7 to a dozen at this size).
    const boxes = await labelBoxes(page);
    expect(clashes(boxes)).toEqual([]);
    expect(boxes.filter((b) => b.label).length).toBeGreaterThanOrEqual(5);
    await page.locator('#graph-canvas').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SCREENSHOTS}/graph-50-desktop.png` });

    await page.getByLabel('Node budget').selectOption('200');
    await page.getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => nodeCount(page), { timeout: 10_000 }).toBeGreaterThan(50);
    expect(problems(page)).toEqual([]);
    await page.close();
  });

  it('filters by kind and edge type, finds within the graph, and reaches nodes by keyboard', async () => {
    const page = await open(`#/graph?ids=${seeded.decisions.slice(0, 6).join(',')}&hops=1`);
    await waitForGraph(page);
    const all = await visibleCount(page);
    const people = await page.evaluate<number>('window.__cy.nodes("[kind = \\"PERSON\\"]").length');
    expect(people).toBeGreaterThan(0);

    await page.getByText('Filter by kind and edge type').click();
    await page.getByRole('checkbox', { name: 'person', exact: true }).uncheck();
    await expect.poll(() => visibleCount(page)).toBe(all - people);
    await page.getByRole('checkbox', { name: 'person', exact: true }).check();
    await expect.poll(() => visibleCount(page)).toBe(all);
    await page.getByRole('checkbox', { name: 'follows', exact: true }).uncheck();
    expect(await page.evaluate<number>('window.__cy.edges(":visible[type = \\"FOLLOWS\\"]").length')).toBe(0);

    await page.getByLabel('Find in the graph').fill('mara');
    await page.locator('#graph-note', { hasText: '1 entry matches' }).waitFor({ timeout: 3_000 });
    await page.getByLabel('Find in the graph').press('Enter');
    await expect.poll(() => page.locator('#graph-selected').textContent()).toContain('Mara Lindqvist');

    // Keyboard: into the canvas, arrows move between entries, Enter opens the one selected.
    await page.locator('#graph-canvas').focus();
    await page.keyboard.press('ArrowRight');
    const chosen = await page.evaluate<string>('window.__cy.nodes(":selected")[0].id()');
    expect(await page.locator('#graph-selected').textContent()).not.toContain('Select a node');
    await page.keyboard.press('Enter');
    await expect.poll(() => decodeURIComponent(new URL(page.url()).hash)).toBe(`#/entry/${chosen}`);
    // The entry page has its own small graph of the neighbourhood.
    await expect.poll(() => page.locator('#local-graph canvas').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    expect(problems(page)).toEqual([]);
    await page.close();
  });

  it('shows the graph and the entry page at phone size', async () => {
    const page = await open(`#/graph?ids=${seeded.decisions[5]}&hops=2`, PHONE);
    await waitForGraph(page);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
    await page.screenshot({ path: `${SCREENSHOTS}/graph-phone.png`, fullPage: true });
    await page.goto(`${srv.origin}/#/entry/${seeded.decisions[5]}`);
    await expect.poll(() => page.locator('#local-graph canvas').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    await page.screenshot({ path: `${SCREENSHOTS}/entry-phone.png`, fullPage: true });
    expect(problems(page)).toEqual([]);
    await page.close();
  });
  for (const [size, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    it(`finds an old entry by typing, narrows the edge types by kind, links, unlinks and undoes (${size})`, async () => {
      const decision = seeded.decisions[size === 'desktop' ? 10 : 11] as string;
      const page = await open(`#/entry/${decision}`, viewport);
      await page.locator('#entry-content').waitFor({ timeout: 10_000 });
      const menu = () =>
        page
          .getByLabel('Edge type')
          .locator('option')
          .evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value));

      // The oldest note is far beyond the 50 newest entries; typing finds it.
      await page.getByLabel('Other entry', { exact: true }).pressSequentially('quokka outage', { delay: 20 });
      const option = page.locator('#other-hits [role="option"]', { hasText: 'zeppelin cache' });
      // Search-as-you-type answers after a pause in typing; a busy machine stretches both.
      await option.waitFor({ timeout: 20_000 });
      await option.click();
      await expect.poll(() => page.locator('.picker-chosen').textContent()).toContain('zeppelin cache');

      // An episodic decision → a semantic note: the types the contract's gates allow, and no others.
      expect(await menu()).toEqual(['RELATES_TO', 'SUPERSEDES', 'CAUSED_BY', 'DECIDED']);
      await page.getByLabel('Direction').selectOption('other → this');
      expect(await menu()).toEqual(['RELATES_TO', 'SUPERSEDES', 'CAUSED_BY']);
      await page.getByLabel('Direction').selectOption('this → other');
      await page.getByLabel('Edge type').selectOption('CAUSED_BY');
      await page.locator('#link-form button[type="submit"]').click();
      const row = page.locator('#connections li', { hasText: 'zeppelin cache' });
      await row.waitFor({ timeout: 5_000 });
      await page.locator('#link-message', { hasText: 'Linked CAUSED_BY.' }).waitFor({ timeout: 5_000 });

      // Unlink asks first; cancelling keeps the edge, confirming removes it, Undo brings it back.
      await row.getByRole('button', { name: /^Unlink CAUSED_BY/ }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
      expect(await row.count()).toBe(1);
      await row.getByRole('button', { name: /^Unlink CAUSED_BY/ }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Unlink' }).click();
      await row.waitFor({ state: 'detached', timeout: 5_000 });
      await page.locator('#connections-message').getByRole('button', { name: 'Undo' }).click();
      await row.waitFor({ timeout: 5_000 });
      const { entry } = await srv.gql<{ entry: { connections: { edge: { type: string; dst: string } }[] } }>(
        'query ($id: ID!) { entry(id: $id) { connections { edge { type dst } } } }',
        { id: decision },
        seeded.workspace,
      );
      expect(entry.connections.some((c) => c.edge.type === 'CAUSED_BY' && c.edge.dst === seeded.oldest.id)).toBe(true);
      await page.screenshot({ path: `${SCREENSHOTS}/entry-link-${size}.png`, fullPage: true });
      expect(problems(page)).toEqual([]);
      await page.close();
    });
  }
  it('pages through every entry in a table, filters, and changes the status of many at once', async () => {
    const page = await open('#/entries');
    const summary = page.locator('#entries-summary');
    await expect.poll(() => summary.textContent(), { timeout: 10_000 }).toBe(`Entries 1–50 of ${seeded.total}.`);
    await page.getByLabel('Per page').selectOption('100');
    await expect.poll(() => summary.textContent()).toBe(`Entries 1–100 of ${seeded.total}.`);
    await page.getByRole('button', { name: 'Next page →' }).click();
    await expect.poll(() => summary.textContent()).toBe(`Entries 101–200 of ${seeded.total}.`);
    await page.getByRole('button', { name: 'Next page →' }).click();
    await expect.poll(() => summary.textContent()).toBe(`Entries 201–${seeded.total} of ${seeded.total}.`);
    expect(await page.getByRole('button', { name: 'Next page →' }).isDisabled()).toBe(true);
    // Newest first: the last page ends with the oldest entry.
    expect(await page.locator('#entries-table tbody tr').last().getAttribute('data-entry-id')).toBe(seeded.oldest.id);
    await page.getByRole('button', { name: '← Previous page' }).click();
    await expect.poll(() => summary.textContent()).toBe(`Entries 101–200 of ${seeded.total}.`);

    await page.getByLabel('Kind', { exact: true }).selectOption('PERSON');
    await expect
      .poll(() => summary.textContent())
      .toBe(`Entries 1–${seeded.people.length} of ${seeded.people.length}.`);
    await page.getByRole('checkbox', { name: 'Select every entry on this page' }).check();
    await page.getByLabel('New status').selectOption('CANONICAL');
    await page.getByRole('button', { name: 'Set status of selected' }).click();
    await page
      .locator('#bulk-message', { hasText: `${seeded.people.length} entries set to CANONICAL.` })
      .waitFor({ timeout: 10_000 });
    const { entries } = await srv.gql<{ entries: { edges: { node: { status: string } }[] } }>(
      '{ entries(first: 50, filter: { kinds: [PERSON] }) { edges { node { status } } } }',
      undefined,
      seeded.workspace,
    );
    expect(entries.edges.map((e) => e.node.status)).toEqual(seeded.people.map(() => 'CANONICAL'));
    await page.screenshot({ path: `${SCREENSHOTS}/entries-desktop.png`, fullPage: true });
    expect(problems(page)).toEqual([]);
    await page.close();

    const phone = await open('#/entries', PHONE);
    await expect
      .poll(() => phone.locator('#entries-summary').textContent(), { timeout: 10_000 })
      .toContain('Entries 1–50');
    expect(await phone.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
    await phone.screenshot({ path: `${SCREENSHOTS}/entries-phone.png` });
    expect(problems(phone)).toEqual([]);
    await phone.close();
  });
  it('loads older events back to the first one, and filters the feed by event type', async () => {
    const { lastEventSeq } = await srv.gql<{ lastEventSeq: number }>('{ lastEventSeq }', undefined, seeded.workspace);
    const page = await open('#/feed');
    const items = page.locator('#feed-list > li');
    await expect.poll(() => items.count(), { timeout: 10_000 }).toBe(50);
    const older = page.getByRole('button', { name: 'Load older events' });
    for (let i = 0; i < 10 && !(await older.isDisabled()); i++) {
      const before = await items.count();
      await older.click();
      await expect.poll(() => items.count(), { timeout: 10_000 }).toBeGreaterThan(before);
    }
    await page.locator('#feed-older-note', { hasText: 'This is the first event' }).waitFor({ timeout: 10_000 });
    expect(await items.count()).toBe(lastEventSeq);
    const seqs = await items.evaluateAll((lis) => lis.map((li) => Number(li.getAttribute('data-seq'))));
    expect(seqs).toEqual(Array.from({ length: lastEventSeq }, (_, i) => lastEventSeq - i));
    // The first event is the oldest note's capture, with its text.
    expect(await page.locator('#feed-list > li[data-seq="1"]').textContent()).toContain('zeppelin cache');

    await page.getByLabel('Show').selectOption('LINKED');
    const shown = await page
      .locator('#feed-list > li:not([hidden])')
      .evaluateAll((lis) => lis.map((li) => li.getAttribute('data-type')));
    expect(shown.length).toBeGreaterThan(100);
    expect(new Set(shown)).toEqual(new Set(['LINKED']));
    await page.screenshot({ path: `${SCREENSHOTS}/feed-links-desktop.png` });
    expect(problems(page)).toEqual([]);
    await page.close();
  });
  it('says why a hit scored as it did, marks the matched words, and gives the recall as GraphQL', async () => {
    const page = await open('#/recall?q=zeppelin%20cache%20outage&k=40&hops=1');
    const first = page.locator('#recall-hits li.hit').first();
    await first.waitFor({ timeout: 10_000 });
    expect(await first.getAttribute('data-entry-id')).toBe(seeded.oldest.id);
    const marked = await first.locator('.snippet mark').allTextContents();
    expect(marked.map((m) => m.toLowerCase())).toEqual(expect.arrayContaining(['zeppelin', 'cache', 'outage']));
    await first.locator('.explain > summary').click();
    const words = (await first.locator('.explain-words').textContent()) ?? '';
    expect(words).toContain('Keyword match, 1st by keywords');
    for (const term of ['zeppelin ×1', 'cache ×1', 'outage ×1']) expect(words).toContain(term);
    expect(words).toMatch(/× [\d.]+ for age/);
    expect(words).toMatch(/= [\d.]+ final score/);
    // A hit the graph brought names the edge and the entry it came through.
    const viaGraph = page.locator('#recall-hits li.hit[data-via]');
    expect(await viaGraph.count()).toBeGreaterThan(0);
    const text = await viaGraph.first().locator('.explain-words').textContent();
    expect(text).toMatch(/Reached through the graph \(hop 1\): a [A-Z_]+ edge \(weight [\d.]+\) (from|to) \S/);
    // One badge per state: no CURRENT beside ACTIVE.
    expect(await first.locator('.badges .badge').allTextContents()).toEqual(['SEMANTIC', 'ACTIVE']);

    await page.getByText('This recall as GraphQL').click();
    const graphql = (await page.locator('#recall-graphql pre').textContent()) ?? '';
    expect(graphql).toContain('query RecallExplained(');
    expect(graphql).toContain('"query": "zeppelin cache outage"');
    await page.screenshot({ path: `${SCREENSHOTS}/recall-desktop.png`, fullPage: true });
    expect(problems(page)).toEqual([]);
    await page.close();

    const phone = await open('#/recall?q=zeppelin%20cache%20outage', PHONE);
    await phone.locator('#recall-hits li.hit').first().waitFor({ timeout: 10_000 });
    expect(await phone.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
    await phone.screenshot({ path: `${SCREENSHOTS}/recall-phone.png` });
    expect(problems(phone)).toEqual([]);
    await phone.close();
  });
  it('shows the brief with its entry ids as links and the counts as coloured bars', async () => {
    for (const [size, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      const page = await open('#/stats', viewport);
      await page.locator('#brief-text').waitFor({ timeout: 10_000 });
      expect(await page.locator('#brief-text a.entry-link').count()).toBeGreaterThan(0);
      expect(await page.locator('#brief-text').evaluate((el) => getComputedStyle(el).fontFamily)).not.toMatch(/mono/i);
      const colours = await page
        .locator('.bars .bar')
        .evaluateAll((bars) => new Set(bars.map((b) => getComputedStyle(b).backgroundColor)).size);
      expect(colours).toBeGreaterThan(5);
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(viewport.width);
      await page.screenshot({ path: `${SCREENSHOTS}/stats-${size}.png`, fullPage: true });
      expect(problems(page)).toEqual([]);
      await page.close();
    }
  });
});
