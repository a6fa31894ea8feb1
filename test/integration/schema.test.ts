import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
  isSpecifiedScalarType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { printSchemaText } from '../../src/graphql/print.ts';
import { buildSchema } from '../../src/graphql/schema.ts';

const SCHEMA_FILE = fileURLToPath(new URL('../../schema.graphql', import.meta.url));

/** Every schema element that should carry a description, with its path. */
function undocumented(): string[] {
  const missing: string[] = [];
  const need = (path: string, description: string | null | undefined) => {
    if (!description?.trim()) missing.push(path);
  };
  const schema = buildSchema();
  for (const type of Object.values(schema.getTypeMap())) {
    if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue;
    need(type.name, type.description);
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        need(`${type.name}.${field.name}`, field.description);
        for (const arg of field.args) need(`${type.name}.${field.name}(${arg.name})`, arg.description);
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) need(`${type.name}.${field.name}`, field.description);
    } else if (isEnumType(type)) {
      for (const value of type.getValues()) need(`${type.name}.${value.name}`, value.description);
    }
  }
  return missing;
}

describe('schema.graphql', () => {
  it('is the printed schema (run npm run schema:print)', () => {
    const committed = readFileSync(SCHEMA_FILE, 'utf8');
    expect(committed === printSchemaText(), 'schema.graphql is out of date: run npm run schema:print').toBe(true);
  });

  it('describes every type, field, argument, input field and enum value', () => {
    expect(undocumented()).toEqual([]);
  });

  it('has the contract’s root fields and enums', () => {
    const schema = buildSchema();
    const names = (t: { getFields(): Record<string, unknown> } | null | undefined) => Object.keys(t?.getFields() ?? {});
    expect(names(schema.getQueryType())).toEqual(
      expect.arrayContaining([
        'recall',
        'recent',
        'entry',
        'connections',
        'graphView',
        'tags',
        'count',
        'stats',
        'brief',
        'eventLog',
      ]),
    );
    expect(names(schema.getMutationType())).toEqual(
      expect.arrayContaining([
        'capture',
        'append',
        'update',
        'setStatus',
        'forget',
        'link',
        'unlink',
        'runStalenessPass',
      ]),
    );
    expect(names(schema.getSubscriptionType())).toEqual(expect.arrayContaining(['captured', 'linked', 'events']));
    const values = (name: string) => {
      const t = schema.getType(name);
      return isEnumType(t) ? t.getValues().map((v) => v.name) : [];
    };
    expect(values('EdgeType')).toEqual([
      'RELATES_TO',
      'SUPERSEDES',
      'CAUSED_BY',
      'DECIDED',
      'ABOUT_PERSON',
      'PART_OF_PROJECT',
      'FOLLOWS',
      'DOCUMENT_OF',
    ]);
    expect(values('CaptureOutcome')).toEqual(['STORED', 'BLOCKED', 'MERGED', 'REPLACED']);
    expect(values('MemoryEventType')).toEqual([
      'CAPTURED',
      'APPENDED',
      'UPDATED',
      'STATUS_CHANGED',
      'FORGOTTEN',
      'LINKED',
      'UNLINKED',
      'STALENESS_PASS',
      'CLASSIFIED',
      'CONTRADICTION',
      'IMPORTED',
    ]);
  });
});
