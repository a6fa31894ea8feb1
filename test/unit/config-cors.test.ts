import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';

const cors = (value: string) => loadConfig({ SPHERE_CORS_ORIGINS: value }).corsOrigins;

describe('SPHERE_CORS_ORIGINS', () => {
  it('takes a comma-separated list of exact origins, ports included', () => {
    expect(cors('https://app.example.com, http://localhost:3000 ,http://127.0.0.1:8080')).toEqual([
      'https://app.example.com',
      'http://localhost:3000',
      'http://127.0.0.1:8080',
    ]);
  });

  it('means none when unset or blank', () => {
    expect(loadConfig({}).corsOrigins).toEqual([]);
    expect(cors('  ')).toEqual([]);
  });

  it.each([
    ['a trailing slash', 'https://app.example.com/'],
    ['a path', 'https://app.example.com/app'],
    ['a query', 'https://app.example.com?x=1'],
    ["'*'", '*'],
    ["'null'", 'null'],
    ['a wildcard host', 'https://*.example.com'],
    ['a default port spelled out', 'https://app.example.com:443'],
    ['credentials', 'https://user@app.example.com'],
    ['another scheme', 'ftp://app.example.com'],
    ['a bare host', 'app.example.com'],
    ['one bad entry among good ones', 'https://app.example.com,*'],
  ])('refuses %s, naming the variable', (_, value) => {
    expect(() => cors(value)).toThrow(
      expect.objectContaining({
        code: 'BAD_USER_INPUT',
        message: expect.stringMatching(/SPHERE_CORS_ORIGINS.*exact origins/),
      }),
    );
  });
});
