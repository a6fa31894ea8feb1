import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPEND, CAPTURE } from '../helpers/operations.ts';
import { type Browser, chromiumAvailable, launchBrowser } from './browser.ts';
import { type DashboardServer, startDashboardServer } from './dashboard-server.ts';

/**
 * The entry page never writes from stale state: every form follows the entry as the server last
 * answered it, and a rewrite prepared from content that changed since is refused, not applied.
 */

const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };

const enabled = chromiumAvailable();

describe.skipIf(!enabled)('dashboard entry page (chromium)', () => {
  let srv: DashboardServer;
  let browser: Browser;

  beforeAll(async () => {
    [srv, browser] = await Promise.all([startDashboardServer(), launchBrowser()]);
  });

  afterAll(async () => {
    await browser?.close();
    await srv?.close();
  });

  async function openEntry(id: string, workspace: string, viewport: { width: number; height: number }) {
    const page = await browser.newPage(viewport);
    await page.addInitScript((ws) => localStorage.setItem('mini-sphere.workspace', ws), workspace);
    await page.goto(`${srv.origin}/#/entry/${encodeURIComponent(id)}`);
    await page.locator('#connection[data-state="live"]').waitFor({ timeout: 10_000 });
    await page.locator('#entry-content').waitFor({ timeout: 10_000 });
    return page;
  }

  async function capture(workspace: string, content: string): Promise<string> {
    const data = await srv.gql<{ capture: { entry: { id: string } } }>(CAPTURE, { input: { content } }, workspace);
    return data.capture.entry.id;
  }

  async function contentOf(workspace: string, id: string): Promise<string> {
    const data = await srv.gql<{ entry: { content: string } }>(
      'query ($id: ID!) { entry(id: $id) { content } }',
      { id },
      workspace,
    );
    return data.entry.content;
  }

  const rewriteBox = (page: Page) => page.getByLabel('New content');

  function expectNoConsoleProblems(page: Page): void {
    expect(browser.errorsOf(page)).toEqual([]);
  }

  for (const [size, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    it(`keeps an append when the content is rewritten right after it (${size})`, async () => {
      const ws = `e2e-append-rewrite-${size}`;
      const original = 'The release train leaves every second Tuesday.';
      const id = await capture(ws, original);
      const page = await openEntry(id, ws, viewport);
      await expect.poll(() => rewriteBox(page).inputValue()).toBe(original);

      await page.getByLabel('Text to add').fill('Hotfixes may board any day.');
      await page.getByRole('button', { name: 'Append', exact: true }).click();
      const appended = `${original}\n\nHotfixes may board any day.`;
      await expect.poll(() => page.locator('#entry-content').textContent()).toBe(appended);

      // A small edit of what the Rewrite box holds, as a user would make it right after.
      await rewriteBox(page).fill(`${await rewriteBox(page).inputValue()} Ask the release lead first.`);
      await page.getByRole('button', { name: 'Replace content' }).click();
      await expect.poll(() => contentOf(ws, id), { timeout: 5_000 }).toContain('Ask the release lead first.');
      // The box had started from the appended content, so the rewrite kept the append.
      expect(await contentOf(ws, id)).toBe(`${appended} Ask the release lead first.`);
      expect(await page.locator('#append-message').textContent()).toBe('Appended.');
      await page.locator('#update-message', { hasText: 'Replaced.' }).waitFor({ timeout: 5_000 });

      const now = await contentOf(ws, id);
      expect(now).toContain('Hotfixes may board any day.');
      expect(now).toContain('Ask the release lead first.');
      await expect.poll(() => page.locator('#entry-content').textContent()).toBe(now);
      // The box follows the server again: what it holds is what was stored.
      expect(await rewriteBox(page).inputValue()).toBe(now);
      expectNoConsoleProblems(page);
      await page.close();
    });
  }

  it('refuses a rewrite begun before an append from elsewhere, and offers both ways out', async () => {
    const ws = 'e2e-stale-rewrite';
    const original = 'Backups run nightly at 02:00 UTC.';
    const id = await capture(ws, original);
    const page = await openEntry(id, ws, DESKTOP);
    await expect.poll(() => rewriteBox(page).inputValue()).toBe(original);

    // The user starts rewriting; meanwhile an agent appends.
    await rewriteBox(page).fill('Backups run nightly at 03:00 UTC.');
    await srv.gql(APPEND, { id, addition: 'Restores were tested in March.' }, ws);
    await expect
      .poll(() => page.locator('#entry-content').textContent(), { timeout: 5_000 })
      .toContain('Restores were tested in March.');
    // The user's text is kept, and the page says the content changed under it.
    expect(await rewriteBox(page).inputValue()).toBe('Backups run nightly at 03:00 UTC.');
    await page.locator('#update-notice', { hasText: 'content changed after you began' }).waitFor({ timeout: 3_000 });

    // Replacing now is refused by the server, said next to the form in words, with the code.
    await page.getByRole('button', { name: 'Replace content' }).click();
    const refusal = page.locator('#update-message [role="alert"][data-code="CONFLICT"]');
    await refusal.waitFor({ timeout: 5_000 });
    expect(await refusal.textContent()).toContain('Not replaced: the content changed after you began');
    expect(await refusal.locator('.error-code').textContent()).toBe('Code: CONFLICT');
    expect(await contentOf(ws, id)).toContain('Restores were tested in March.');

    // "Start again" takes the current content; "Replace anyway" replaces it after a confirmation.
    await refusal.getByRole('button', { name: 'Start again from the current content' }).click();
    expect(await rewriteBox(page).inputValue()).toBe(await contentOf(ws, id));
    expect(await page.locator('#update-message').textContent()).toBe('');

    await rewriteBox(page).fill('Backups run nightly at 04:00 UTC.');
    await srv.gql(APPEND, { id, addition: 'Offsite copies go weekly.' }, ws);
    await expect
      .poll(() => page.locator('#entry-content').textContent(), { timeout: 5_000 })
      .toContain('Offsite copies go weekly.');
    await page.getByRole('button', { name: 'Replace content' }).click();
    await refusal.waitFor({ timeout: 5_000 });
    await refusal.getByRole('button', { name: 'Replace anyway…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Replace' }).click();
    await page.locator('#update-message', { hasText: 'Replaced.' }).waitFor({ timeout: 5_000 });
    expect(await contentOf(ws, id)).toBe('Backups run nightly at 04:00 UTC.');
    expectNoConsoleProblems(page);
    await page.close();
  });

  it('refuses a rewrite whose expected content hash is not the current one (API)', async () => {
    const ws = 'e2e-stale-api';
    const id = await capture(ws, 'Standups are at 09:30.');
    const res = await fetch(`${srv.origin}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-workspace': ws },
      body: JSON.stringify({
        query: 'mutation ($input: UpdateInput!) { update(input: $input) { entry { content } } }',
        variables: { input: { id, content: 'Standups are at 10:00.', expectedContentHash: 'not-the-hash' } },
      }),
    });
    const body = (await res.json()) as { errors?: { extensions?: { code?: string; contentHash?: string } }[] };
    expect(body.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    const current = await srv.gql<{ entry: { contentHash: string } }>(
      'query ($id: ID!) { entry(id: $id) { contentHash } }',
      { id },
      ws,
    );
    expect(body.errors?.[0]?.extensions?.contentHash).toBe(current.entry.contentHash);
    expect(await contentOf(ws, id)).toBe('Standups are at 09:30.');
  });
});
