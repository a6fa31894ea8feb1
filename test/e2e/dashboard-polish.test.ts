import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTRY_KINDS } from '../../src/contract/enums.ts';
import { runCli } from '../helpers/cli.ts';
import { CAPTURE, LINK } from '../helpers/operations.ts';
import { type Browser, chromiumAvailable, launchBrowser } from './browser.ts';
import { type DashboardServer, startDashboardServer } from './dashboard-server.ts';
import { clashes, labelBoxes } from './graph-labels.ts';

/*
 * What a newcomer notices in the dashboard's first hour: the graph's legend and labels, the
 * graph and recall on a phone, seeds chosen by searching, why a hit moved, which workspace is
 * in use, and why the dashboard sees nothing when the server refuses it.
 */

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 375, height: 667 };

/** Polled from the test side: the dashboard's CSP refuses waitForFunction's string evaluation. */
async function waitForGraph(page: Page, nodes?: number): Promise<void> {
  const count = () => page.evaluate<number>('window.__cy?.nodes().length ?? 0');
  await expect.poll(count, { timeout: 10_000 }).toBeGreaterThan(0);
  if (nodes !== undefined) await expect.poll(count, { timeout: 10_000 }).toBe(nodes);
}

const ordinal = (n: number) => {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  return `${n}${teen ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th')}`;
};

const enabled = chromiumAvailable();

describe.skipIf(!enabled)('dashboard polish (chromium)', () => {
  let srv: DashboardServer;
  let browser: Browser;

  beforeAll(async () => {
    [srv, browser] = await Promise.all([startDashboardServer(), launchBrowser()]);
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await srv?.close();
  });

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

  /** A hub, 4 entries around it and 15 around those: 20 entries within two hops, long texts. */
  async function twentyNodeGraph(ws: string): Promise<string> {
    const topics = ['storage', 'billing', 'search', 'onboarding'];
    const hub = await capture(ws, {
      content: 'Quarterly platform review covering every team and project',
      kind: 'PROJECT',
    });
    for (const [i, topic] of topics.entries()) {
      const mid = await capture(ws, {
        content: `The ${topic} workstream of the quarterly platform review, with its owners and risks`,
        kind: ENTRY_KINDS[i % ENTRY_KINDS.length],
      });
      await srv.gql(LINK, { input: { src: hub, dst: mid, type: 'RELATES_TO', weight: 0.9 } }, ws);
      for (let j = 0; j < (i < 3 ? 4 : 3); j++) {
        const leaf = await capture(ws, {
          content: `Finding ${j + 1} of the ${topic} workstream: a long note that would never fit under a node`,
          kind: ENTRY_KINDS[(i + j + 1) % ENTRY_KINDS.length],
        });
        await srv.gql(LINK, { input: { src: mid, dst: leaf, type: 'RELATES_TO', weight: 0.5 + j / 10 } }, ws);
      }
    }
    return hub;
  }

  it('has a legend with every kind and draws 20 nodes without overlapping labels', async () => {
    const ws = 'polish-graph';
    const hub = await twentyNodeGraph(ws);
    const page = await open(`#/graph?ids=${hub}&hops=2`, ws);
    await waitForGraph(page, 20);

    const boxes = await labelBoxes(page);
    expect(clashes(boxes)).toEqual([]);
    // Labels are drawn where they fit, the seed's among them; none is the whole long text.
    const labelled = boxes.filter((b) => b.label);
    expect(labelled.length).toBeGreaterThanOrEqual(5);
    expect(labelled.some((b) => b.id === hub)).toBe(true);
    for (const b of labelled) expect(b.label.length).toBeLessThanOrEqual(30);

    for (const kind of ENTRY_KINDS) {
      await expect.poll(() => page.locator(`.legend [data-kind="${kind}"]`).count()).toBe(1);
    }
    const legend = (await page.locator('.legend').textContent()) ?? '';
    expect(legend).toContain('no arrow');
    expect(legend).toContain('seed');
    expect(browser.errorsOf(page)).toEqual([]);
    await page.close();
  }, 60_000);

  it('fills a phone with the graph and zooms by buttons', async () => {
    const ws = 'polish-graph'; // the previous test's graph
    const page = await open('#/graph?hops=2', ws, PHONE);
    await waitForGraph(page);
    const width = (await page.locator('#graph-canvas').boundingBox())?.width ?? 0;
    expect(width).toBeGreaterThanOrEqual(0.9 * PHONE.width);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);

    const zoom = () => page.evaluate<number>('window.__cy.zoom()');
    const before = await zoom();
    await page.getByRole('button', { name: 'Zoom in' }).click();
    const zoomedIn = await zoom();
    expect(zoomedIn).toBeGreaterThan(before);
    await page.getByRole('button', { name: 'Zoom out' }).click();
    await page.getByRole('button', { name: 'Zoom out' }).click();
    expect(await zoom()).toBeLessThan(zoomedIn);
    for (let i = 0; i < 4; i++) await page.getByRole('button', { name: 'Zoom in' }).click();
    await page.getByRole('button', { name: 'Fit the graph' }).click();
    expect(await zoom()).toBeCloseTo(before, 5);
    expect(browser.errorsOf(page)).toEqual([]);
    await page.close();
  });

  it('chooses seeds by searching, and shows a recall hit or an entry in the graph', async () => {
    const ws = 'polish-seeds';
    const kickoff = await capture(ws, { content: 'Kickoff meeting for the Zephyr rollout', kind: 'EPISODIC' });
    const project = await capture(ws, { content: 'Project Zephyr', kind: 'PROJECT' });
    const other = await capture(ws, { content: 'Unrelated note on coffee beans', kind: 'SEMANTIC' });
    await srv.gql(LINK, { input: { src: kickoff, dst: project, type: 'PART_OF_PROJECT', weight: 0.8 } }, ws);

    const page = await open('#/graph', ws);
    await waitForGraph(page);
    await page.getByLabel('Find entries to add as seeds').fill('kickoff zephyr');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('button', { name: /^Add seed Kickoff meeting/ }).click();
    await expect.poll(() => page.locator('#graph-seeds').textContent()).toContain('Kickoff meeting');
    await page.getByRole('button', { name: 'Show graph' }).click();
    const seedsOf = () => page.evaluate<string[]>("window.__cy?.nodes('.seed').map((n) => n.id()) ?? []");
    await expect.poll(seedsOf, { timeout: 10_000 }).toEqual([kickoff]);
    await waitForGraph(page, 2);

    // From recall: each hit has "Show in graph".
    await page.goto(`${srv.origin}/#/recall?q=coffee+beans`);
    const hit = page.locator(`#recall-hits li[data-entry-id="${other}"]`);
    await hit.getByRole('link', { name: 'Show in graph' }).click();
    await expect.poll(seedsOf, { timeout: 10_000 }).toEqual([other]);

    // From the entry page.
    await page.goto(`${srv.origin}/#/entry/${project}`);
    await page.getByRole('link', { name: 'Show in graph' }).click();
    await expect.poll(seedsOf, { timeout: 10_000 }).toEqual([project]);
    expect(await page.locator('#graph-seeds').textContent()).toContain('Project Zephyr');
    expect(browser.errorsOf(page)).toEqual([]);
    await page.close();
  });

  it('folds the recall form on a phone once results show, and says when MMR moved a hit', async () => {
    const ws = 'polish-mmr';
    // Two near-duplicates rank 1st and 2nd by score; MMR lists a different third entry between them.
    const texts = [
      'Orchid greenhouse humidity schedule: mist the orchids twice a day and vent the greenhouse at noon.',
      'Orchid greenhouse humidity schedule: mist the orchids twice a day and vent the greenhouse at noon, sensors checked.',
      'Orchid greenhouse humidity sensors: the wiring runs through the north wall to the controller cabinet by the door.',
      'Orchid potting mix: bark, perlite and charcoal.',
    ];
    for (const content of texts) await capture(ws, { content });
    const { recall } = await srv.gql<{ recall: { hits: { rank: number; score: number; entry: { id: string } }[] } }>(
      'query { recall(query: "orchid greenhouse humidity", topK: 4) { hits { rank score entry { id } } } }',
      undefined,
      ws,
    );
    const byScore = [...recall.hits].sort((a, b) => b.score - a.score);
    const moved = byScore.map((hit, i) => ({ ...hit, was: i + 1 })).filter((hit) => hit.was !== hit.rank);
    expect(moved.length).toBeGreaterThan(0); // the construction works: MMR reordered the hits

    const page = await open('#/recall', ws, PHONE);
    await page.getByLabel('Query').fill('orchid greenhouse humidity');
    await page.getByLabel('Top K').fill('4');
    await page.getByRole('button', { name: 'Recall', exact: true }).click();
    await page.locator('#recall-hits li').first().waitFor();
    expect(await page.locator('form[role="search"]').isVisible()).toBe(false);
    const summary = page.locator('#recall-summary');
    expect(await summary.isVisible()).toBe(true);
    expect(await summary.textContent()).toContain('“orchid greenhouse humidity”');

    for (const hit of moved) {
      const item = page.locator(`#recall-hits li[data-entry-id="${hit.entry.id}"]`);
      await item.locator('.explain > summary').click();
      const text = (await item.locator('.explain').textContent()) ?? '';
      expect(text).toContain(`from ${ordinal(hit.was)} to ${ordinal(hit.rank)}`);
      expect(text).toContain('diversity step (MMR)');
      if (hit.rank > hit.was) expect(text).toContain('avoid near-duplicates');
    }
    const unmoved = recall.hits.find((hit) => !moved.some((m) => m.entry.id === hit.entry.id));
    if (unmoved) {
      const text = await page.locator(`#recall-hits li[data-entry-id="${unmoved.entry.id}"] .explain`).textContent();
      expect(text).not.toContain('MMR');
    }

    await page.getByRole('button', { name: 'Edit query' }).click();
    expect(await page.locator('form[role="search"]').isVisible()).toBe(true);
    expect(await page.getByLabel('Query').evaluate((el) => el === document.activeElement)).toBe(true);
    expect(browser.errorsOf(page)).toEqual([]);
    await page.close();
  });

  it('shows a long workspace name in full on a phone', async () => {
    const ws = 'polish-a-rather-long-workspace-name';
    const page = await open('#/feed', ws, PHONE);
    const button = page.locator('#workspace-button');
    expect(await button.textContent()).toBe(`Workspace: ${ws}`);
    const fits = await button.evaluate((el) => {
      const box = el.getBoundingClientRect();
      return {
        clipped: el.scrollWidth > el.clientWidth || el.scrollHeight > el.clientHeight,
        inside: box.left >= 0 && box.right <= window.innerWidth,
      };
    });
    expect(fits).toEqual({ clipped: false, inside: true });
    await page.close();
  });
});

describe.skipIf(!enabled)('dashboard access in token mode (chromium)', () => {
  const ws = 'polish-token-space';
  let guarded: DashboardServer;
  let browser: Browser;
  const tokens: Record<'agent' | 'reader' | 'maintainer', string> = { agent: '', reader: '', maintainer: '' };

  beforeAll(async () => {
    [guarded, browser] = await Promise.all([startDashboardServer({ authRequired: true }), launchBrowser()]);
    for (const role of ['agent', 'reader', 'maintainer'] as const) {
      const made = await runCli(['token', 'create', '--workspace', ws, '--role', role], {
        SPHERE_DATA_DIR: guarded.dataDir,
      });
      expect(made.code).toBe(0);
      tokens[role] = made.stdout.trim().split('\n').at(-1) ?? '';
    }
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await guarded?.close();
  });

  /** Captures with the agent token, over HTTP as any client would; returns the entry's id. */
  async function captureAsAgent(content: string): Promise<string> {
    const res = await fetch(`${guarded.origin}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.agent}` },
      body: JSON.stringify({ query: CAPTURE, variables: { input: { content } } }),
    });
    const body = (await res.json()) as { data?: { capture: { entry: { id: string } } } };
    if (!body.data) throw new Error(`capture failed: ${JSON.stringify(body)}`);
    return body.data.capture.entry.id;
  }

  /** A page whose browser holds this token (and, stale, the open-mode workspace "default"). */
  async function openWith(token: string | null, route = '#/feed'): Promise<Page> {
    const page = await browser.newPage(DESKTOP);
    await page.addInitScript((t) => {
      localStorage.setItem('mini-sphere.workspace', 'default');
      // One browser profile: a token an earlier page saved must not leak into this one.
      if (t) localStorage.setItem('mini-sphere.token', t);
      else localStorage.removeItem('mini-sphere.token');
    }, token);
    await page.goto(`${guarded.origin}/${route}`);
    return page;
  }

  it("names the token's workspace, not the local setting", async () => {
    const page = await openWith(tokens.agent);
    await page.locator('#connection[data-state="live"]').waitFor({ timeout: 10_000 });
    await expect.poll(() => page.locator('#workspace-button').textContent()).toBe(`Workspace: ${ws}`);
    const head = (await page.locator('.view-head').textContent()) ?? '';
    expect(head).toContain(ws);
    expect(head).not.toContain('default');
    expect(await page.title()).toContain(ws);
    await page.close();
  });

  it('says a token is needed and where to paste it, instead of "No events yet"', async () => {
    const page = await openWith(null);
    const dialog = page.getByRole('dialog', { name: 'Workspace and token' });
    await dialog.waitFor({ timeout: 5_000 });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    const view = page.locator('#view');
    await expect.poll(() => view.textContent(), { timeout: 5_000 }).toContain('This server needs a token');
    expect(await view.textContent()).toContain('Workspace and token');
    expect(await view.textContent()).not.toContain('No events yet');
    await view.getByRole('button', { name: 'Enter a token' }).click();
    await dialog.waitFor({ timeout: 2_000 });
    expect(await dialog.textContent()).toContain('paste it in the Token field');
    await page.close();
  });

  it('says which role a refused token lacks', async () => {
    const page = await openWith(tokens.maintainer);
    const view = page.locator('#view');
    await expect.poll(() => view.textContent(), { timeout: 5_000 }).toContain('the maintainer role may not read');
    expect(await view.textContent()).toContain('Reading needs a token with the agent or reader role');
    expect(await view.textContent()).not.toContain('No events yet');
    expect(await page.locator('#connection').getAttribute('data-state')).toBe('forbidden');

    await page.goto(`${guarded.origin}/#/recall?q=anything`);
    await expect
      .poll(() => view.textContent(), { timeout: 5_000 })
      .toContain('Reading needs a token with the agent or reader role');
    await page.close();
  });

  it('says a token is needed when capturing without one, with the way to enter it', async () => {
    const page = await openWith(null, '#/capture');
    const dialog = page.getByRole('dialog', { name: 'Workspace and token' });
    await page.locator('#connection[data-state="unauthorized"]').waitFor({ timeout: 10_000 });
    // The live stream and the replace candidates are both refused; each may open the dialog.
    await page.waitForLoadState('networkidle');
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    await page.getByLabel('Content').fill('A note nobody may store without a token');
    await page.getByRole('button', { name: 'Capture', exact: true }).click();
    const outcome = page.locator('#capture-outcome');
    await expect.poll(() => outcome.textContent(), { timeout: 5_000 }).toContain('This server needs a token');
    expect(await outcome.locator('[data-code="UNAUTHENTICATED"]').count()).toBe(1);
    await dialog.waitFor({ timeout: 2_000 });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await outcome.getByRole('button', { name: 'Enter a token' }).click();
    await dialog.waitFor({ timeout: 2_000 });
    expect(await dialog.textContent()).toContain('paste it in the Token field');
    await page.close();
  });

  it('says which role may write when a reader tries to rewrite or forget an entry', async () => {
    const content = 'The reader may look at this entry but not change it';
    const id = await captureAsAgent(content);
    const page = await openWith(tokens.reader, `#/entry/${id}`);
    await expect.poll(() => page.locator('#entry-content').textContent(), { timeout: 10_000 }).toBe(content);
    // Each refusal is said next to the control that caused it.
    let status = page.locator('#update-message');

    await page.getByLabel('New content').fill('Rewritten by a reader');
    await page.getByRole('button', { name: 'Replace content' }).click();
    await expect
      .poll(() => status.textContent(), { timeout: 5_000 })
      .toContain('Writing needs a token with the agent role');
    expect(await status.locator('[data-code="FORBIDDEN"]').count()).toBe(1);
    expect(await status.getByRole('button', { name: 'Use another token' }).count()).toBe(1);

    // Afresh, so the message below is the forget's own.
    await page.reload();
    await expect.poll(() => page.locator('#entry-content').textContent(), { timeout: 10_000 }).toBe(content);
    status = page.locator('#forget-message');
    expect(await status.textContent()).toBe('');
    await page.getByRole('button', { name: 'Forget…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Forget' }).click();
    await expect
      .poll(() => status.textContent(), { timeout: 5_000 })
      .toContain('Writing needs a token with the agent role');
    expect(await page.locator('#entry-content').textContent()).toBe(content);
    await page.close();
  });

  it('says a token is needed when an entry page opens without one', async () => {
    const id = await captureAsAgent('An entry seen only with a token');
    const page = await openWith(null, `#/entry/${id}`);
    const body = page.locator('#entry-body');
    await expect.poll(() => body.textContent(), { timeout: 10_000 }).toContain('This server needs a token');
    expect(await body.getByRole('button', { name: 'Enter a token' }).count()).toBe(1);
    expect(await body.textContent()).not.toContain('An entry seen only with a token');
    await page.close();
  });
});
