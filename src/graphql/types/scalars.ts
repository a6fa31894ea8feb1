import { Kind, type ValueNode } from 'graphql';
import { badInput } from '../../contract/errors.ts';
import { jsonTooDeep, LIMITS } from '../../contract/limits.ts';
import { builder } from '../builder.ts';
import { toGraphQLError } from '../errors.ts';

// An instant: a date and time with Z or an offset. Bare dates and local times are ambiguous.
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

/** Date would roll 2026-02-30 over to March; check the written fields themselves. */
function dayExists(value: string): boolean {
  const [y = 0, m = 0, d = 0] = value.slice(0, 10).split('-').map(Number);
  return m >= 1 && m <= 12 && d >= 1 && d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

function parseInstant(value: unknown): Date {
  if (typeof value === 'string' && ISO_INSTANT.test(value) && dayExists(value)) {
    const d = new Date(value);
    const year = d.getUTCFullYear();
    if (!Number.isNaN(d.getTime()) && year >= 0 && year <= 9999) return d;
  }
  throw toGraphQLError(
    badInput(`DateTime must be an ISO-8601 instant such as 2026-11-30T02:45:00.000Z, got ${JSON.stringify(value)}`),
  );
}

builder.scalarType('DateTime', {
  description:
    'An instant in time: ISO-8601 in UTC with a Z on output (2026-11-30T02:45:00.000Z); any ISO-8601 instant on input.',
  serialize: (value) => new Date(value instanceof Date ? value.getTime() : Number(value)).toISOString(),
  parseValue: parseInstant,
  parseLiteral: (node) => parseInstant(node.kind === Kind.STRING ? node.value : null),
});

function literalToJson(node: ValueNode): unknown {
  switch (node.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return node.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(node.value);
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return node.values.map(literalToJson);
    case Kind.OBJECT:
      return Object.fromEntries(node.fields.map((f) => [f.name.value, literalToJson(f.value)]));
    default:
      throw toGraphQLError(badInput('JSON literals cannot contain variables or enums'));
  }
}

/** The value, if its arrays and objects nest at most LIMITS.jsonDepthMax deep. */
function shallowJson(value: unknown): unknown {
  if (jsonTooDeep(value))
    throw toGraphQLError(badInput(`JSON nests deeper than ${LIMITS.jsonDepthMax} levels`, 'metadata'));
  return value;
}

builder.scalarType('JSON', {
  description: `Any JSON value, nested at most ${LIMITS.jsonDepthMax} levels deep.`,
  serialize: (value) => value,
  parseValue: shallowJson,
  parseLiteral: (node) => shallowJson(literalToJson(node)),
});
