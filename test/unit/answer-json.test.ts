import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { measureAnswer, SMALL_ANSWER_BYTES, stringifyWithin, withData } from '../../src/graphql/response-size.ts';

/** A GraphQL-shaped answer: objects without a prototype, as graphql-js builds them. */
function rows(count: number, text = (i: number) => `tag-${i}`): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, i) => Object.assign(Object.create(null), { tag: text(i), count: i }));
}

describe('stringifyWithin', () => {
  it('makes the text JSON.stringify makes, whatever the value holds', async () => {
    let deep: unknown = 'bottom';
    let deepText = '"bottom"';
    for (let i = 0; i < 5_000; i++) {
      deep = i % 2 ? [deep] : { d: deep };
      deepText = i % 2 ? `[${deepText}]` : `{"d":${deepText}}`;
    }
    const values: unknown[] = [
      null,
      7,
      'é "quoted" \n\u2028',
      [],
      {},
      Object.create(null),
      { a: undefined, b: () => 1, c: Symbol('s'), d: [undefined, () => 1, Number.NaN, -0, Infinity], e: true },
      { when: new Date(0), error: new GraphQLError('no', { extensions: { code: 'X' } }) },
      { a0: rows(20_000), a1: rows(3, (i) => 'x'.repeat(100_000 + i)), nested: { list: [rows(5_000), [[], [{}]]] } },
      Array.from({ length: 9_000 }, (_, i) => (i % 3 ? { i, inner: rows(2) } : i)),
    ];
    for (const value of values)
      expect(await stringifyWithin(value, Number.MAX_SAFE_INTEGER)).toBe(JSON.stringify(value));
    // Nesting deeper than JSON.stringify itself can take (it overflows the stack) is written too.
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    expect(await stringifyWithin(deep, Number.MAX_SAFE_INTEGER)).toBe(deepText);
  });

  it('gives null as soon as the text passes the limit, counting UTF-8 bytes', async () => {
    const value = { list: rows(50_000) };
    const size = Buffer.byteLength(JSON.stringify(value));
    expect(await stringifyWithin(value, size)).not.toBeNull();
    expect(await stringifyWithin(value, size - 1)).toBeNull();
    const wide = ['é'.repeat(1_000)];
    const bytes = Buffer.byteLength(JSON.stringify(wide));
    expect(bytes).toBe(2_004);
    expect(await stringifyWithin(wide, bytes)).toBe(JSON.stringify(wide));
    expect(await stringifyWithin(wide, bytes - 1)).toBeNull();
  });

  it('leaves the event loop free between its slices', async () => {
    const value = { data: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`a${i}`, rows(10_000)])) };
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    try {
      // Slices of no time at all: every step waits for the loop's next turn.
      const text = await stringifyWithin(value, Number.MAX_SAFE_INTEGER, 0);
      expect(text).toBe(JSON.stringify(value));
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThan(10);
  });
});

describe('measureAnswer', () => {
  it('leaves a small answer to its transport, and makes a large one’s data in slices', async () => {
    const small = { data: { tags: rows(10) } };
    expect(await measureAnswer(small, 16 * 1024 * 1024)).toEqual({ tooLarge: false });
    const data = { tags: rows(20_000) };
    const large = { data, errors: [new GraphQLError('partly', { path: ['x'] })] };
    const measured = await measureAnswer(large, 16 * 1024 * 1024);
    expect(measured).toEqual({ tooLarge: false, dataJson: JSON.stringify(data) });
    expect(JSON.stringify(data).length).toBeGreaterThan(SMALL_ANSWER_BYTES);
    // Sent with its errors as the transport formats them.
    const text = withData({ errors: [{ message: 'partly', path: ['x'] }], stringify: () => '' }, JSON.stringify(data));
    expect(JSON.parse(text)).toEqual({
      errors: [{ message: 'partly', path: ['x'] }],
      data: JSON.parse(JSON.stringify(data)),
    });
    expect(withData({ data: null }, '{"a":1}')).toBe('{"data":{"a":1}}');
  });

  it('refuses an answer past the cap, small cap or large', async () => {
    const data = { tags: rows(20_000) };
    const size = Buffer.byteLength(JSON.stringify({ data }));
    expect(await measureAnswer({ data }, size - 100)).toEqual({ tooLarge: true });
    expect(await measureAnswer({ data: { tags: rows(10) } }, 100)).toEqual({ tooLarge: true });
    expect(await measureAnswer({ data: { tags: rows(10) } }, 1_000)).toEqual({ tooLarge: false });
  });
});
