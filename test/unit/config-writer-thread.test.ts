import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';

describe('SPHERE_WRITER_THREAD', () => {
  it('is on unless turned off, and takes only on or off', () => {
    expect(loadConfig({}).writerThread).toBe(true);
    expect(loadConfig({ SPHERE_WRITER_THREAD: 'on' }).writerThread).toBe(true);
    expect(loadConfig({ SPHERE_WRITER_THREAD: 'off' }).writerThread).toBe(false);
    expect(() => loadConfig({ SPHERE_WRITER_THREAD: 'yes' })).toThrow(/SPHERE_WRITER_THREAD/);
  });
});
