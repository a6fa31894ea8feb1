import { readdir, readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from '@graphql-codegen/cli';
import { describe, expect, it } from 'vitest';
import { codegenConfig, sha256Hex } from '../../client/codegen.ts';
import { loadTrustedDocuments } from '../../src/server/trusted-documents.ts';

const GENERATED = fileURLToPath(new URL('../../client/src/generated/', import.meta.url));
const MANIFEST = `${GENERATED}persisted-documents.json`;

describe('the typed client\u2019s generated files', () => {
  it('are what `npm run codegen` makes from schema.graphql and the operations today (run it when this fails)', async () => {
    const outputs = (await generate(codegenConfig(GENERATED), false)) as { filename: string; content: string }[];
    const fresh = new Map(outputs.map((o) => [basename(o.filename), o.content]));
    expect([...fresh.keys()].sort()).toEqual((await readdir(GENERATED)).sort());
    for (const [name, content] of fresh) {
      expect(await readFile(`${GENERATED}${name}`, 'utf8'), `${name} is stale: run npm run codegen`).toBe(content);
    }
  }, 60_000);

  it('include a persisted-documents manifest the server loads: each key the bare sha-256 hex of its document', async () => {
    const manifest = JSON.parse(await readFile(MANIFEST, 'utf8')) as Record<string, string>;
    const names = Object.values(manifest).map((doc) => /(?:query|mutation|subscription) (\w+)/.exec(doc)?.[1]);
    expect(names.sort()).toEqual(
      [
        'Append',
        'Capture',
        'Entries',
        'Entry',
        'Events',
        'Forget',
        'GraphView',
        'LastEventSeq',
        'Link',
        'Recall',
        'Unlink',
      ].sort(),
    );
    for (const [hash, doc] of Object.entries(manifest)) expect(hash).toBe(sha256Hex(doc));
    const trusted = loadTrustedDocuments(MANIFEST);
    expect(trusted.size).toBe(Object.keys(manifest).length);
    for (const [hash, doc] of Object.entries(manifest)) expect(trusted.get(hash)).toBe(doc);
  });
});
