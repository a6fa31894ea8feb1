import { describe, expect, it } from 'vitest';
import {
  classifyVolatility,
  DURABLE_SIGNALS,
  EPHEMERAL_SIGNALS,
  EVOLVING_SIGNALS,
} from '../../src/memory/staleness.ts';

const SIGNALS = [...EPHEMERAL_SIGNALS, ...EVOLVING_SIGNALS, ...DURABLE_SIGNALS];

/** Runs of the shapes that make a backtracking pattern rescan: each as long as a content may be. */
const HOSTILE = {
  'A.A.A…': 'A.'.repeat(50_000),
  'AAAA…': 'A'.repeat(100_000),
  'A-A-A…': 'A-'.repeat(50_000),
  'v1.1.1…': `v${'1.'.repeat(49_999)}x`,
  '1.1.1…': '1.'.repeat(50_000),
  'spaces then a digit': `Node${' '.repeat(99_990)}1`,
  'words then is': `${'word '.repeat(19_999)}is`,
};

describe('staleness signals', () => {
  for (const [name, text] of Object.entries(HOSTILE)) {
    it(`run in linear time on ${name}`, () => {
      const started = performance.now();
      for (const re of SIGNALS) re.test(text);
      // Linear, all of them take a few milliseconds here; the quadratic product-name pattern
      // took seconds on A.A.A… of this length.
      expect(performance.now() - started).toBeLessThan(1_000);
    });
  }

  it('still see a product and its version', () => {
    expect(classifyVolatility('Node 20.11 is the current LTS')).toBe('EVOLVING');
    expect(classifyVolatility('We moved to Python 3.13 for the parser')).toBe('EVOLVING');
    expect(classifyVolatility('the client pins v2.3 of the protocol')).toBe('EVOLVING');
    expect(classifyVolatility('The unit of account is a kind of measure')).toBe('DURABLE');
    expect(classifyVolatility('A.'.repeat(1_000))).toBe('EVOLVING');
  });
});
