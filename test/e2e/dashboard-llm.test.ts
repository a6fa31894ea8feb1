import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatServer, llmConfig, startChatServer } from '../helpers/chat-server.ts';
import { settle } from '../helpers/ws.ts';
import { type Browser, chromiumAvailable, launchBrowser } from './browser.ts';
import { type DashboardServer, startDashboardServer } from './dashboard-server.ts';

/**
 * With the LLM binding on, an entry's page says where each classified field came from and
 * lists what the model found between it and other entries, in words, with links.
 */

const enabled = chromiumAvailable();

const CAPTURE = `mutation ($input: CaptureInput!) { capture(input: $input) { entry { id } } }`;
const PENDING = '{ stats { llm { pending } } }';

describe.skipIf(!enabled)('dashboard entry page with the LLM binding (chromium)', () => {
  let chat: ChatServer;
  let srv: DashboardServer;
  let browser: Browser;

  beforeAll(async () => {
    chat = await startChatServer();
    [srv, browser] = await Promise.all([startDashboardServer({ llm: llmConfig(chat.url) }), launchBrowser()]);
  });

  afterAll(async () => {
    await browser?.close();
    await srv?.close();
    await chat?.close();
  });

  const capture = async (ws: string, input: Record<string, unknown>) =>
    (await srv.gql<{ capture: { entry: { id: string } } }>(CAPTURE, { input }, ws)).capture.entry.id;

  async function drained(ws: string): Promise<void> {
    for (;;) {
      const data = await srv.gql<{ stats: { llm: { pending: number } } }>(PENDING, {}, ws);
      if (data.stats.llm.pending === 0) return;
      await settle(50);
    }
  }

  for (const [size, viewport] of [
    ['desktop', { width: 1366, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    it(`shows the model's classification and the conflicts on both entries (${size})`, async () => {
      const ws = `llm-${size}`;
      const monday = await capture(ws, { content: 'The launch is on Monday.', volatility: 'EVOLVING' });
      await drained(ws);
      const tuesday = await capture(ws, {
        content: 'How to plan it: the launch moved to Tuesday.',
        classify: ['KIND'],
      });
      await drained(ws);

      const page = await browser.newPage(viewport);
      await page.addInitScript((w) => localStorage.setItem('mini-sphere.workspace', w), ws);
      await page.goto(`${srv.origin}/#/entry/${encodeURIComponent(tuesday)}`);
      await page.locator('#entry-content').waitFor({ timeout: 10_000 });
      const facts = page.locator('dl.meta');
      await expect.poll(() => facts.textContent()).toContain('PROCEDURAL (proposed by rules-1)');
      expect(await facts.textContent()).toContain('(proposed by rules-1)');
      const conflicts = page.locator('#conflicts li');
      expect(await conflicts.count()).toBe(1);
      expect(await conflicts.first().textContent()).toMatch(/This entry updates The launch is on Monday\./);
      expect(await conflicts.first().textContent()).toContain('the launch changed: monday -> tuesday');
      await page.screenshot({ path: `test-results/screenshots/entry-llm-${size}.png`, fullPage: true });

      // The older entry's page names the newer one, and a click opens it.
      await page.goto(`${srv.origin}/#/entry/${encodeURIComponent(monday)}`);
      await page.locator('#conflicts li').first().waitFor({ timeout: 10_000 });
      expect(await page.locator('#conflicts li').first().textContent()).toMatch(/Updated by How to plan it/);
      await page.locator('#conflicts a.entry-link').first().click();
      await expect.poll(() => page.url()).toContain(encodeURIComponent(tuesday));
      expect(browser.errorsOf(page)).toEqual([]);
      await page.close();
    });
  }
});
