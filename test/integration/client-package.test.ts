import { describe, expect, it } from 'vitest';

describe('the client package as an agent installs it', () => {
  it('resolves by its package name (an npm workspace of this repository)', async () => {
    const client = await import('mini-sphere-client');
    expect(typeof client.createSphereClient).toBe('function');
    const manifest = (await import('mini-sphere-client/persisted-documents.json')).default as Record<string, string>;
    expect(Object.keys(manifest).length).toBeGreaterThan(0);
  });
});
