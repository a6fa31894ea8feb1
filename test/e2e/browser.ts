import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { PROCESS_START_BUDGET } from '../helpers/budget.ts';

/** Debian's chromium (`apt-get install -y chromium`); browsers are never downloaded. */
export const CHROMIUM = '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Whether the e2e tests can run here. Without chromium they are skipped with a printed reason,
 * except in CI (CI=true), where a missing browser is a failure.
 */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  const reason = `${CHROMIUM} is missing (apt-get install -y chromium)`;
  if (process.env.CI === 'true') throw new Error(`${reason}; CI must install it`);
  console.warn(`skipping the dashboard e2e tests: ${reason}`);
  return false;
}

export interface Browser {
  context: BrowserContext;
  /** A new page that records its console errors and uncaught exceptions. */
  newPage(viewport?: { width: number; height: number }): Promise<Page>;
  /** The console errors and page errors of a page so far. */
  errorsOf(page: Page): string[];
  /** The console warnings of a page so far (urql and graphcache warn there in a development build). */
  warningsOf(page: Page): string[];
  close(): Promise<void>;
}

/** Launches headless chromium with a fresh temp profile. */
export async function launchBrowser(): Promise<Browser> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'mini-sphere-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 800 },
    timeout: PROCESS_START_BUDGET,
  });
  const errors = new Map<Page, string[]>();
  const warnings = new Map<Page, string[]>();
  // A persistent context opens with one blank page; close it so every page is one we made.
  await Promise.all(context.pages().map((p) => p.close()));
  return {
    context,
    errorsOf: (page) => errors.get(page) ?? [],
    warningsOf: (page) => warnings.get(page) ?? [],
    newPage: async (viewport) => {
      const page = await context.newPage();
      const seen: string[] = [];
      const warned: string[] = [];
      errors.set(page, seen);
      warnings.set(page, warned);
      if (viewport) await page.setViewportSize(viewport);
      page.on('console', (msg) => {
        if (msg.type() === 'error') seen.push(`console error: ${msg.text()} (${msg.location().url})`);
        if (msg.type() === 'warning') warned.push(`console warning: ${msg.text()} (${msg.location().url})`);
      });
      page.on('pageerror', (error) => seen.push(`page error: ${error.message}`));
      return page;
    },
    close: async () => {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}
