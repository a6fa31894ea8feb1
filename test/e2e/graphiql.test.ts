import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPTURE } from '../helpers/operations.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { type Browser, chromiumAvailable, launchBrowser } from './browser.ts';

const SUBSCRIPTION = 'subscription { events { seq type entry { content } } }';

/** Polls `check` until it returns true; the machine is slow, so the bound is generous. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The text of an editor (Monaco renders spaces as no-break spaces). */
async function textOf(page: Page, selector: string): Promise<string> {
  return (await page.locator(selector).innerText()).replace(/\u00a0/g, ' ');
}

/** What the result pane shows now. */
function resultText(page: Page): Promise<string> {
  return textOf(page, '.graphiql-response');
}

/**
 * In token mode the server refuses GraphiQL's schema introspection: 401 when it comes without
 * the token (the caller is not known, so its document is not even read), 400 with it
 * (introspection is off). Chrome logs either; that is the server's policy, not a page fault.
 */
const INTROSPECTION_REFUSED = /Failed to load resource: the server responded with a status of 40[01]/;

/** Console errors and uncaught exceptions, CSP violations among them, but `allowed` ones. */
function faults(browser: Browser, page: Page, allowed?: RegExp): string[] {
  return browser.errorsOf(page).filter((e) => !allowed?.test(e));
}

const enabled = chromiumAvailable();

describe.skipIf(!enabled)('GraphiQL (chromium)', () => {
  let browser: Browser;
  let open: TestServer;
  let tokens: TestServer;
  let token: string;

  beforeAll(async () => {
    [browser, open, tokens] = await Promise.all([
      launchBrowser(),
      startTestServer(),
      startTestServer({ config: { playground: true } }),
    ]);
    token = (await (await tokens.server.control()).createToken('tq', 'agent')).token;
  });

  afterAll(async () => {
    await browser?.close();
    await open?.stop();
    await tokens?.stop();
  });

  /** Opens GraphiQL with `query` in the editor and `headers` typed into the Headers tab. */
  async function openGraphiQL(srv: TestServer, query: string, headers: Record<string, string>): Promise<Page> {
    const page = await browser.newPage();
    await page.goto(`${srv.url}?query=${encodeURIComponent(query)}`, { waitUntil: 'load', timeout: 60_000 });
    await page.getByText('Headers', { exact: true }).click({ timeout: 60_000 });
    const editor = page.locator('.graphiql-editor-tool .monaco-editor').last();
    await editor.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    // insertText bypasses Monaco's bracket and quote auto-closing.
    await page.keyboard.insertText(JSON.stringify(headers));
    return page;
  }

  /** Runs the subscription and captures in `workspace` until GraphiQL shows one of those captures. */
  async function subscribeUntilLive(page: Page, capture: (content: string) => Promise<void>, tag: string) {
    await page.locator('.graphiql-execute-button').click();
    let n = 0;
    await until(`GraphiQL to show a ${tag} event`, async () => {
      n += 1;
      await capture(`${tag} marker ${n} ${Date.now()}`);
      await new Promise((r) => setTimeout(r, 500));
      return (await resultText(page)).includes(`${tag} marker`);
    });
  }

  it('streams the workspace named in its Headers tab, not default (open mode)', async () => {
    const page = await openGraphiQL(open, SUBSCRIPTION, { 'x-workspace': 'gq' });
    const received: string[] = [];
    page.on('websocket', (ws) => ws.on('framereceived', (f) => received.push(String(f.payload))));
    const captureIn = async (workspace: string, content: string) => {
      await open.gqlOk(CAPTURE, { input: { content } }, { workspace });
    };

    await subscribeUntilLive(page, (c) => captureIn('gq', c), 'gq');
    await captureIn('default', 'default marker: must not reach the gq subscription');
    await captureIn('gq', 'gq closing marker');
    await until('the closing gq event', async () => (await resultText(page)).includes('gq closing marker'));

    expect(await resultText(page)).not.toContain('default marker');
    expect(received.join('\n')).not.toContain('default marker');
    expect(faults(browser, page)).toEqual([]);
    await page.close();
  });

  it('connects with the token in its Headers tab and streams its workspace (token mode)', async () => {
    const page = await openGraphiQL(tokens, SUBSCRIPTION, { authorization: `Bearer ${token}` });
    const captureIn = async (content: string) => {
      await tokens.gqlOk(CAPTURE, { input: { content } }, { headers: { authorization: `Bearer ${token}` } });
    };

    await subscribeUntilLive(page, captureIn, 'tq');

    expect(faults(browser, page, INTROSPECTION_REFUSED)).toEqual([]);
    await page.close();
  });

  it('shows the message and code of a subscription the server refuses', async () => {
    const page = await openGraphiQL(open, 'subscription { events(sinceSeq: 0) { seq } }', {
      'x-workspace': 'Bad Workspace!',
    });
    await page.locator('.graphiql-execute-button').click();
    await until('the refusal in the result pane', async () => (await resultText(page)).includes('BAD_USER_INPUT'));
    const shown = await resultText(page);
    expect(shown).toContain('invalid workspace id');
    expect(shown).not.toContain('[object Object]');
    expect(faults(browser, page)).toEqual([]);
    await page.close();
  });

  it('starts with a Mini-Sphere example for the mode, not the stock welcome text', async () => {
    for (const [srv, hint, allowed] of [
      [open, '{"x-workspace": "default"}', undefined],
      [tokens, '{"authorization": "Bearer <token>"}', INTROSPECTION_REFUSED],
    ] as const) {
      const page = await browser.newPage();
      // A new visitor: GraphiQL shows a returning one the tabs of the last visit instead.
      await page.addInitScript(() => localStorage.clear());
      await page.goto(srv.url, { waitUntil: 'load', timeout: 60_000 });
      await until('the query editor', async () =>
        (await textOf(page, '.graphiql-query-editor')).includes('Mini-Sphere'),
      );
      const text = await textOf(page, '.graphiql-query-editor');
      expect(text).toContain(hint);
      expect(text).toContain('mutation Capture');
      expect(text).not.toContain('Welcome to');
      expect(faults(browser, page, allowed)).toEqual([]);
      await page.close();
    }
  });
});
