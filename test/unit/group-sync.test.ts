import { describe, expect, it } from 'vitest';
import { GroupSync } from '../../src/db/local-client.ts';

describe('GroupSync', () => {
  it('lets every caller wait for a sync that started after its call, and shares syncs', async () => {
    const started: (() => void)[] = [];
    const sync = new GroupSync(() => new Promise<void>((resolve) => started.push(resolve)));
    const order: string[] = [];
    const a = sync.sync().then(() => order.push('a'));
    const b = sync.sync().then(() => order.push('b'));
    const c = sync.sync().then(() => order.push('c'));
    expect(started.length).toBe(1);
    started[0]!();
    await a;
    // b and c came while the first sync ran: they wait for the second one, together.
    expect(order).toEqual(['a']);
    await new Promise((r) => setTimeout(r, 0));
    expect(started.length).toBe(2);
    started[1]!();
    await Promise.all([b, c]);
    expect(order).toEqual(['a', 'b', 'c']);
    expect(sync.count).toBe(2);
  });

  it('rejects the callers of a failed sync and recovers for the next ones', async () => {
    let fail = true;
    const sync = new GroupSync(async () => {
      if (fail) throw new Error('EIO');
    });
    await expect(sync.sync()).rejects.toThrow('EIO');
    fail = false;
    await expect(sync.sync()).resolves.toBeUndefined();
  });
});
