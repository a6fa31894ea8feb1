import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/db/remote-failure.ts';

describe('redactUrl', () => {
  it('hides user names, passwords and credential parameters, and keeps the rest readable', () => {
    expect(redactUrl('redis://:hunter2@cache.internal:6379/0')).toBe('redis://:***@cache.internal:6379/0');
    expect(redactUrl('redis://app:hunter2@cache.internal:6379')).toBe('redis://***:***@cache.internal:6379');
    expect(redactUrl('libsql://{workspace}-acme.turso.io?authToken=eyJh.x&tls=1')).toBe(
      'libsql://{workspace}-acme.turso.io?authToken=***&tls=1',
    );
    expect(redactUrl('http://127.0.0.1:8080/{workspace}')).toBe('http://127.0.0.1:8080/{workspace}');
  });

  it('shows only the scheme of what it cannot parse', () => {
    expect(redactUrl('libsql://user:pa ss@[bad')).toBe('libsql://***');
    expect(redactUrl('not a url')).toBe('//***');
  });
});
