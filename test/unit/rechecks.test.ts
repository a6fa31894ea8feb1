import { describe, expect, it } from 'vitest';
import { Rechecks } from '../../src/server/rechecks.ts';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Rechecks', () => {
  it('checks a key once per interval however many streams watch it, and tells them all when denied', async () => {
    const rechecks = new Rechecks(20);
    let checks = 0;
    let allowed = true;
    const check = async () => {
      checks++;
      return allowed;
    };
    const denied: number[] = [];
    const unwatch = Array.from({ length: 500 }, (_, i) => rechecks.watch('token:a', check, () => denied.push(i)));
    await wait(110);
    // About five intervals: one check each, not 500.
    expect(checks).toBeGreaterThanOrEqual(1);
    expect(checks).toBeLessThanOrEqual(8);
    allowed = false;
    const deadline = Date.now() + 5_000;
    while (denied.length < 500 && Date.now() < deadline) await wait(10);
    expect(denied).toHaveLength(500);
    expect(rechecks.keys).toBe(0);
    for (const u of unwatch) u();
  });

  it('stops checking a key once its last watcher leaves', async () => {
    const rechecks = new Rechecks(10);
    let checks = 0;
    const stop = rechecks.watch(
      'open',
      async () => ++checks > 0,
      () => {},
    );
    await wait(35);
    stop();
    const seen = checks;
    await wait(40);
    expect(checks).toBe(seen);
    expect(rechecks.keys).toBe(0);
  });
});
