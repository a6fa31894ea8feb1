import { describe, expect, it } from 'vitest';
import { classifyVolatility } from '../../src/memory/staleness.ts';

describe('classifyVolatility', () => {
  it.each([
    ['The deploy is down right now', 'EPHEMERAL'],
    ['Standup moved to 10:30 today', 'EPHEMERAL'],
    ['Node 20.11 is the current LTS', 'EVOLVING'],
    ['We are currently migrating billing to Stripe', 'EVOLVING'],
    ['The Pro plan costs $20 per month', 'EVOLVING'],
    ["Ada Lovelace's birthday is 10 December 1815", 'DURABLE'],
    ['A monad is a monoid in the category of endofunctors', 'DURABLE'],
    ['Ohm’s law relates voltage, current and resistance', 'DURABLE'],
    ['Kim prefers tea over coffee', 'EVOLVING'],
  ])('%s → %s', (text, volatility) => {
    expect(classifyVolatility(text)).toBe(volatility);
  });
});
