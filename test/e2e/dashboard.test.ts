import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { CAPTURE, LINK, UPDATE } from '../helpers/operations.ts';
import { type Browser, chromiumAvailable, launchBrowser } from './browser.ts';
import { type DashboardServer, startDashboardServer } from './dashboard-server.ts';

/**
 * Waits until the graph has rendered nodes. Polled from the test side with page.evaluate:
 * waitForFunction evaluates strings in the page, which the dashboard's CSP (no eval) refuses.
 */
async function waitForGraph(page: Page, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ready = await page.evaluate(() => {
      const cy = (window as unknown as { __cy?: { nodes(): { length: number } } }).__cy;
      return Boolean(cy && cy.nodes().length > 0);
    });
    if (ready) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the graph did not render in time');
}

const SCREENSHOTS = resolve('test-results/screenshots');
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

/**
 * Chrome itself logs a failed WebSocket handshake as a console error; while the server is down
 * (or the page offline) on purpose in the restart test, that is expected, not a dashboard fault.
 */
const EXPECTED_WHILE_DOWN = /WebSocket connection to '.*' failed|net::ERR_(CONNECTION_REFUSED|INTERNET_DISCONNECTED)/;

const enabled = chromiumAvailable();

describe.skipIf(!enabled)('dashboard (chromium)', () => {
  let srv: DashboardServer;
  let browser: Browser;

  beforeAll(async () => {
    [srv, browser] = await Promise.all([startDashboardServer(), launchBrowser()]);
  });

  afterAll(async () => {
    await browser?.close();
    await srv?.close();
  });

  /** Opens the dashboard on a route in a workspace of its own (set before the app starts). */
  async function open(route: string, workspace: string, viewport = DESKTOP): Promise<Page> {
    const page = await browser.newPage(viewport);
    await page.addInitScript((ws) => localStorage.setItem('mini-sphere.workspace', ws), workspace);
    await page.goto(`${srv.origin}/${route}`);
    await page.locator('#connection[data-state="live"]').waitFor({ timeout: 10_000 });
    return page;
  }

  async function capture(workspace: string, input: Record<string, unknown>): Promise<string> {
    const data = await srv.gql<{ capture: { entry: { id: string } } }>(CAPTURE, { input }, workspace);
    return data.capture.entry.id;
  }

  /** Fails on any console error or uncaught exception of these pages, but the `expected` ones. */
  function expectNoConsoleErrors(pages: Page[], expected?: RegExp): void {
    const errors = pages.flatMap((page) => browser.errorsOf(page)).filter((e) => !expected?.test(e));
    expect(errors).toEqual([]);
  }

  it('captures in one page, shows it live in another, recalls it and shows its history', async () => {
    const ws = 'e2e-live';
    const [writer, watcher] = await Promise.all([open('#/capture', ws), open('#/feed', ws)]);
    const content = 'The heliotrope migration plan moves the archive to cold storage before June.';

    await writer.getByLabel('Content').fill(content);
    await writer.getByLabel('Tags').fill('storage, plans');
    await writer.getByLabel('Kind').selectOption('PROCEDURAL');
    await writer.getByLabel('Volatility').selectOption('DURABLE');
    await writer.getByLabel('Importance (0–1)').fill('0.8');
    await writer.getByLabel('Claim').selectOption('VERIFIED');
    await writer.getByLabel('Evidence reference').fill('adr-0042');
    await writer.getByRole('button', { name: 'Capture' }).click();
    await writer.locator('#capture-outcome [data-outcome="STORED"]').waitFor({ timeout: 5_000 });

    // The second page shows it within a second, content text included.
    await watcher
      .locator('#feed-list li[data-type="CAPTURED"]', { hasText: 'heliotrope migration plan' })
      .waitFor({ timeout: 1_000 });

    // Capturing the same text again is BLOCKED, and says so.
    await writer.getByLabel('Content').fill(content);
    await writer.getByRole('button', { name: 'Capture' }).click();
    await writer.locator('#capture-outcome [data-outcome="BLOCKED"]').waitFor({ timeout: 5_000 });

    // Recall in the second page finds it, with a snippet and the score's parts.
    await watcher.getByRole('link', { name: 'Recall' }).click();
    await watcher.getByLabel('Query').fill('heliotrope archive');
    await watcher.getByLabel('Query').press('Enter');
    const hit = watcher.locator('#recall-hits li.hit').first();
    await expect.poll(() => hit.locator('.snippet').textContent()).toContain('heliotrope');
    expect(await hit.locator('.arms').textContent()).toContain('KEYWORD');
    expect(await hit.locator('.explain').textContent()).toContain('final');

    // Opening it shows the entry; an append through the page and an update through the API
    // both show up in its history (the second one live, without a reload).
    await hit.locator('.hit-head a.entry-link').click();
    await expect.poll(() => watcher.locator('#entry-content').textContent()).toBe(content);
    await watcher.locator('#append-form textarea').fill('Update: the move slipped to July.');
    await watcher.locator('#append-form button[type="submit"]').click();
    await watcher.locator('#revisions li[data-op="APPEND"]', { hasText: 'heliotrope' }).waitFor({ timeout: 5_000 });
    await expect.poll(() => watcher.locator('#entry-content').textContent()).toContain('slipped to July');

    const id = decodeURIComponent(new URL(watcher.url()).hash.split('/')[2] ?? '');
    await srv.gql(UPDATE, { id, content: 'The heliotrope archive now lives in cold storage.' }, ws);
    await watcher
      .locator('#revisions li[data-op="UPDATE"]', { hasText: 'slipped to July' })
      .waitFor({ timeout: 3_000 });
    expect(await watcher.locator('#revisions li[data-op]').count()).toBe(2);

    expectNoConsoleErrors([writer, watcher]);
    await Promise.all([writer.close(), watcher.close()]);
  });

  it('can be used by keyboard alone: navigate, fill the capture form and submit', async () => {
    const ws = 'e2e-keyboard';
    const page = await open('#/feed', ws);
    /** Presses Tab until the focused element matches, as a keyboard user would. */
    const tabTo = async (matches: (el: { tag: string; text: string; label: string }) => boolean) => {
      for (let i = 0; i < 60; i++) {
        await page.keyboard.press('Tab');
        const el = await page.evaluate(() => {
          const a = document.activeElement as HTMLElement | null;
          const labels = (a as HTMLInputElement | null)?.labels;
          return {
            tag: a?.tagName.toLowerCase() ?? '',
            text: (a?.textContent ?? '').trim(),
            label: labels && labels.length > 0 ? (labels[0]?.textContent ?? '').trim() : '',
          };
        });
        if (matches(el)) return;
      }
      throw new Error('never reached the element by Tab');
    };

    await tabTo((el) => el.tag === 'a' && el.text === 'Capture');
    await page.keyboard.press('Enter');
    await page.getByLabel('Content').waitFor();
    await tabTo((el) => el.label === 'Content');
    await page.keyboard.type('Typed without a mouse: the keyboard path works.');
    await tabTo((el) => el.label === 'Tags');
    await page.keyboard.type('a11y');
    await tabTo((el) => el.tag === 'button' && el.text === 'Capture');
    await page.keyboard.press('Enter');
    await page.locator('#capture-outcome [data-outcome="STORED"]').waitFor({ timeout: 5_000 });

    const stored = await srv.gql<{ recent: { content: string; tags: string[] }[] }>(
      '{ recent(n: 1) { content tags } }',
      {},
      ws,
    );
    expect(stored.recent[0]).toEqual({ content: 'Typed without a mouse: the keyboard path works.', tags: ['a11y'] });
    expectNoConsoleErrors([page]);
    await page.close();
  });

  it('renders the graph of a seeded neighbourhood with every node and edge', async () => {
    const ws = 'e2e-graph';
    const project = await capture(ws, { content: 'Project Atlas', kind: 'PROJECT' });
    const person = await capture(ws, { content: 'Dana Reyes, storage lead', kind: 'PERSON' });
    const meeting = await capture(ws, { content: 'Kickoff meeting for Atlas', kind: 'EPISODIC' });
    const followUp = await capture(ws, { content: 'Follow-up: Atlas budget review', kind: 'EPISODIC' });
    const fact = await capture(ws, { content: 'Atlas stores its data in libSQL', kind: 'SEMANTIC' });
    const far = await capture(ws, { content: 'libSQL supports WAL mode', kind: 'SEMANTIC' });
    for (const [src, dst, type] of [
      [meeting, project, 'PART_OF_PROJECT'],
      [meeting, person, 'ABOUT_PERSON'],
      [followUp, meeting, 'FOLLOWS'],
      [meeting, fact, 'RELATES_TO'],
      [fact, far, 'CAUSED_BY'], // two hops away from the seed
    ]) {
      await srv.gql(LINK, { input: { src, dst, type, weight: 0.8 } }, ws);
    }

    // Switch workspace through the dialog, as a user would.
    const page = await open('#/feed', 'default');
    await page.getByRole('button', { name: /^Workspace:/ }).click();
    await page.getByLabel('Workspace', { exact: true }).fill(ws);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.locator('#workspace-button').textContent()).toBe(`Workspace: ${ws}`);
    await page.locator('#connection[data-state="live"]').waitFor();

    await page.goto(`${srv.origin}/#/graph?ids=${meeting}&hops=1`);
    await waitForGraph(page);
    const counts = await page.evaluate<{ nodes: number; edges: number; types: string[] }>(
      `({ nodes: window.__cy.nodes().length, edges: window.__cy.edges().length,
          types: window.__cy.edges().map((e) => e.data('type')).sort() })`,
    );
    expect(counts).toEqual({
      nodes: 5,
      edges: 4,
      types: ['ABOUT_PERSON', 'FOLLOWS', 'PART_OF_PROJECT', 'RELATES_TO'],
    });
    expect(await page.locator('#graph-summary').textContent()).toContain('5 entries and 4 edges');
    expect(await page.locator('.legend-edges li').count()).toBe(8);

    // Two hops reach the far entry too.
    await page.getByLabel('Hops').selectOption('2');
    await page.getByRole('button', { name: 'Show' }).click();
    await expect.poll(() => page.evaluate<number>('window.__cy?.nodes().length ?? 0')).toBe(6);
    expect(await page.evaluate<number>('window.__cy.edges().length')).toBe(5);

    expectNoConsoleErrors([page]);
    await page.close();
  });

  it('sets the status, links, unlinks and forgets (after a confirmation) from the entry page', async () => {
    const ws = 'e2e-edit';
    const a = await capture(ws, { content: 'Decision: use WAL mode', kind: 'EPISODIC' });
    const b = await capture(ws, { content: 'SQLite locking notes', kind: 'DOCUMENT' });
    const page = await open(`#/entry/${a}`, ws);
    await page.locator('#entry-content').waitFor();

    await page.getByLabel('Status', { exact: true }).selectOption('CANONICAL');
    await page.getByRole('button', { name: 'Set status' }).click();
    await page.locator('.badges-line .badge.status[data-value="CANONICAL"]').waitFor({ timeout: 3_000 });

    await page.getByLabel('Other entry', { exact: true }).fill(b);
    await page.getByLabel('Edge type').selectOption('CAUSED_BY');
    await page.locator('#link-form button[type="submit"]').click();
    await page.locator('#connections li', { hasText: 'SQLite locking notes' }).waitFor({ timeout: 3_000 });
    // The kind gates of the contract come back as readable errors.
    await page.getByLabel('Other entry', { exact: true }).fill(b);
    await page.getByLabel('Edge type').selectOption('FOLLOWS');
    await page.locator('#link-form button[type="submit"]').click();
    await page.locator('#link-message [role="alert"]', { hasText: 'EDGE_KIND_MISMATCH' }).waitFor({ timeout: 3_000 });

    await page.getByRole('button', { name: /^Unlink CAUSED_BY/ }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Unlink' }).click();
    await page.locator('#connections').waitFor({ state: 'detached', timeout: 3_000 });

    // Cancelling the confirmation keeps the entry; confirming forgets it.
    await page.getByRole('button', { name: 'Forget…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    expect(await srv.gql<{ entry: unknown }>(`{ entry(id: "${a}") { id } }`, undefined, ws)).toEqual({
      entry: { id: a },
    });
    await page.getByRole('button', { name: 'Forget…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Forget' }).click();
    await page.getByRole('heading', { name: 'Forgotten' }).waitFor({ timeout: 3_000 });
    expect(await srv.gql(`{ entry(id: "${a}") { id } }`, undefined, ws)).toEqual({ entry: null });

    expectNoConsoleErrors([page]);
    await page.close();
  });

  it('reconnects after a server restart and shows the events committed meanwhile', async () => {
    const ws = 'e2e-restart';
    const page = await open('#/feed', ws);
    await capture(ws, { content: 'before the restart' });
    await page.locator('#feed-list li', { hasText: 'before the restart' }).waitFor({ timeout: 2_000 });

    await srv.stop();
    await page.locator('#connection[data-state="reconnecting"]').waitFor({ timeout: 5_000 });
    // Keep the page from finding the new server until the other client has written, so these
    // events are certainly committed while it is disconnected.
    await browser.context.setOffline(true);
    await srv.start();
    const during = ['while away one', 'while away two', 'while away three'];
    for (const content of during) await capture(ws, { content });
    await page.waitForTimeout(600); // a retry or two fail while offline
    expect(await page.locator('#connection').getAttribute('data-state')).toBe('reconnecting');
    await browser.context.setOffline(false);

    await page.locator('#connection[data-state="live"]').waitFor({ timeout: 15_000 });
    await capture(ws, { content: 'after the reconnect' });
    await page.locator('#feed-list li', { hasText: 'after the reconnect' }).waitFor({ timeout: 3_000 });

    const items = await page
      .locator('#feed-list li')
      .evaluateAll((lis) => lis.map((li) => [Number(li.getAttribute('data-seq')), li.textContent ?? ''] as const));
    for (const content of during) expect(items.some(([, text]) => text.includes(content))).toBe(true);
    const seqs = items.map(([seq]) => seq);
    expect(seqs).toEqual([5, 4, 3, 2, 1]); // newest first, none missing, none twice

    await page.close();
    expectNoConsoleErrors([page], EXPECTED_WHILE_DOWN);
  });

  it('asks for a token when the server wants one, then works with it', async () => {
    const guarded = await startDashboardServer({ authRequired: true });
    try {
      const made = await runCli(['token', 'create', '--workspace', 'e2e-auth', '--role', 'agent'], {
        SPHERE_DATA_DIR: guarded.dataDir,
      });
      expect(made.code).toBe(0);
      const token = made.stdout.trim().split('\n').at(-1) ?? '';

      const page = await browser.newPage(DESKTOP);
      await page.goto(`${guarded.origin}/#/feed`);
      const dialog = page.getByRole('dialog', { name: 'Workspace and token' });
      await dialog.waitFor({ timeout: 5_000 });
      expect(await dialog.textContent()).toContain('asks for a token');
      expect(await page.locator('#connection').getAttribute('data-state')).toBe('unauthorized');
      await dialog.getByLabel('Token (optional)').fill(token);
      await dialog.getByRole('button', { name: 'Save' }).click();
      await page.locator('#connection[data-state="live"]').waitFor({ timeout: 5_000 });
      expect(await page.evaluate<string | null>("localStorage.getItem('mini-sphere.token')")).toBe(token);

      await page.getByRole('link', { name: 'Capture' }).click();
      await page.getByLabel('Content').fill('Written with a token');
      await page.getByRole('button', { name: 'Capture' }).click();
      await page.locator('#capture-outcome [data-outcome="STORED"]').waitFor({ timeout: 5_000 });
      await page.getByRole('link', { name: 'Feed' }).click();
      await page.locator('#feed-list li', { hasText: 'Written with a token' }).waitFor({ timeout: 2_000 });

      await page.close();
      // Refused requests before the token was given are logged by Chrome as failed loads.
      expectNoConsoleErrors([page], /status of 401|WebSocket connection to '.*' failed/);
    } finally {
      await guarded.close();
    }
  });

  it('screenshots every view at desktop and phone sizes', async () => {
    const ws = 'e2e-live'; // the first test's workspace has entries, revisions and a blocked capture
    const { recall } = await srv.gql<{ recall: { hits: { entry: { id: string } }[] } }>(
      'query { recall(query: "heliotrope") { hits { entry { id } } } }',
      undefined,
      ws,
    );
    const id = recall.hits[0]?.entry.id ?? '';
    // A small neighbourhood, so the graph screenshots show several edge types.
    const doc = await capture(ws, { content: 'Cold storage vendor shortlist', kind: 'DOCUMENT', tags: ['storage'] });
    const project = await capture(ws, { content: 'Project Heliotrope', kind: 'PROJECT' });
    const person = await capture(ws, { content: 'Sam Okafor, archivist', kind: 'PERSON' });
    const meeting = await capture(ws, { content: 'Archive planning call', kind: 'EPISODIC', tags: ['storage'] });
    const links: [string, string, string][] = [
      [doc, id, 'DOCUMENT_OF'],
      [id, project, 'PART_OF_PROJECT'],
      [meeting, person, 'ABOUT_PERSON'],
      [meeting, id, 'DECIDED'],
      [doc, meeting, 'RELATES_TO'],
    ];
    for (const [src, dst, type] of links) await srv.gql(LINK, { input: { src, dst, type, weight: 0.7 } }, ws);

    await mkdir(SCREENSHOTS, { recursive: true });
    const views: [string, string, string][] = [
      ['feed', '#/feed', '#feed-list li'],
      ['recall', '#/recall?q=heliotrope+storage', '#recall-hits li'],
      ['entry', `#/entry/${id}`, '#revisions'],
      ['graph', `#/graph?ids=${id}&hops=2`, '#graph-summary'],
      ['capture', '#/capture', '#capture-form'],
      ['stats', '#/stats', '#brief-text'],
    ];
    const pages: Page[] = [];
    for (const [size, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      const page = await open('#/feed', ws, viewport);
      pages.push(page);
      for (const [name, route, ready] of views) {
        await page.goto(`${srv.origin}/${route}`);
        await page.locator(ready).first().waitFor({ timeout: 5_000 });
        if (name === 'graph') await waitForGraph(page);
        await page.screenshot({ path: `${SCREENSHOTS}/${name}-${size}.png`, fullPage: true });
      }
      await page.close();
    }
    console.log(`dashboard screenshots: ${SCREENSHOTS}`);
    expectNoConsoleErrors(pages);
  });
});
