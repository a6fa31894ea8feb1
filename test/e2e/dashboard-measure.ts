/**
 * Measures the dashboard as shipped: bundle sizes (minified, gzipped) and, on a seeded workspace
 * of about 300 entries, the first contentful paint and the time until the feed, the entries table
 * and a 50-node graph are drawn, in headless Chromium. Not a test: prints medians of 5 runs.
 *
 *   npx tsx test/e2e/dashboard-measure.ts
 */
import { gzipSync } from 'node:zlib';
import { launchBrowser } from './browser.ts';
import { startDashboardServer } from './dashboard-server.ts';
import { seedWorkspace } from './seed-workspace.ts';

const RUNS = 5;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

const srv = await startDashboardServer();
const browser = await launchBrowser();
try {
  for (const path of ['/app.js', '/app.css', '/']) {
    const body = Buffer.from(await (await fetch(`${srv.origin}${path}`)).arrayBuffer());
    console.log(
      `${path.padEnd(9)} ${(body.length / 1024).toFixed(1)} KiB minified, ${(gzipSync(body).length / 1024).toFixed(1)} KiB gzipped`,
    );
  }
  const seeded = await seedWorkspace(srv, 'measure');
  const times: Record<string, number[]> = { fcp: [], feed: [], entries: [], graph: [] };
  for (let i = 0; i < RUNS; i++) {
    const page = await browser.newPage({ width: 1366, height: 900 });
    await page.addInitScript((ws) => localStorage.setItem('mini-sphere.workspace', ws), seeded.workspace);
    await page.goto(`${srv.origin}/#/feed`);
    await page.locator('#feed-list > li').nth(49).waitFor({ timeout: 30_000 });
    const { fcp, now } = await page.evaluate<{ fcp: number; now: number }>(
      `({ fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN, now: performance.now() })`,
    );
    times.fcp?.push(fcp);
    times.feed?.push(now);
    let start = await page.evaluate<number>('performance.now()');
    await page.evaluate(`location.hash = '#/entries'`);
    await page.locator('#entries-table tbody tr').nth(49).waitFor({ timeout: 30_000 });
    times.entries?.push((await page.evaluate<number>('performance.now()')) - start);
    start = await page.evaluate<number>('performance.now()');
    await page.evaluate(`location.hash = '#/graph?ids=${seeded.decisions.slice(0, 8).join(',')}&hops=2'`);
    for (;;) {
      const n = await page.evaluate<number>('window.__cy ? window.__cy.nodes().length : 0');
      const placed = await page.evaluate<boolean>(
        'Boolean(window.__cy && window.__cy.nodes(".quiet").length + window.__cy.nodes().length > 0)',
      );
      if (n >= 40 && placed) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    times.graph?.push((await page.evaluate<number>('performance.now()')) - start);
    await page.close();
  }
  for (const [what, xs] of Object.entries(times))
    console.log(`${what.padEnd(8)} median ${median(xs).toFixed(0)} ms (${xs.map((x) => x.toFixed(0)).join(', ')})`);
} finally {
  await browser.close();
  await srv.close();
}
