import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createDirectPost, negotiate } from '../../src/server/direct-post.ts';

describe('negotiate', () => {
  it('picks the JSON media type Yoga would, or none', () => {
    expect(negotiate(undefined)).toBe('application/json');
    expect(negotiate('*/*')).toBe('application/json');
    expect(negotiate('application/json')).toBe('application/json');
    expect(negotiate('application/graphql-response+json')).toBe('application/graphql-response+json');
    expect(negotiate('application/graphql-response+json, application/json')).toBe('application/graphql-response+json');
    expect(negotiate('application/json, application/graphql-response+json')).toBe('application/json');
    expect(negotiate('application/*')).toBe('application/json');
    expect(negotiate('application/json; charset=latin1')).toBeNull();
    expect(negotiate('text/event-stream')).toBeNull();
    expect(negotiate('multipart/mixed')).toBeNull();
    expect(negotiate('text/html')).toBeNull();
  });
});

describe('accepts', () => {
  const direct = createDirectPost({} as never, { path: '/graphql', onError: () => {} });
  const request = (over: { url?: string; method?: string; headers?: Record<string, string> } = {}) =>
    ({
      url: over.url ?? '/graphql',
      method: over.method ?? 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...over.headers },
    }) as unknown as IncomingMessage;

  it('takes plain JSON POSTs to the GraphQL path', () => {
    expect(direct.accepts(request())).toBe(true);
    expect(direct.accepts(request({ headers: { 'content-type': 'application/json; charset=UTF-8' } }))).toBe(true);
  });

  it('leaves everything else to Yoga', () => {
    expect(direct.accepts(request({ url: '/graphql?query={count}' }))).toBe(false);
    expect(direct.accepts(request({ url: '/other' }))).toBe(false);
    expect(direct.accepts(request({ method: 'GET' }))).toBe(false);
    expect(direct.accepts(request({ headers: { 'content-type': 'application/graphql' } }))).toBe(false);
    expect(direct.accepts(request({ headers: { 'content-type': 'multipart/form-data; boundary=x' } }))).toBe(false);
    expect(direct.accepts(request({ headers: { accept: 'text/event-stream' } }))).toBe(false);
    expect(direct.accepts(request({ headers: { origin: 'http://example.test' } }))).toBe(false);
    expect(direct.accepts(request({ headers: { 'content-encoding': 'gzip' } }))).toBe(false);
  });
});
