import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { generate } from '@graphql-codegen/cli';
import { describe, expect, it } from 'vitest';
import { CLIENT_GENERATED, codegenConfig, sha256Hex } from '../../client/codegen.ts';
import { loadTrustedDocuments } from '../../src/server/trusted-documents.ts';

const MANIFEST = `${CLIENT_GENERATED}persisted-documents.json`;

describe('the typed client\u2019s generated files', () => {
  it('are what `npm run codegen` makes from schema.graphql and the operations today (run it when this fails)', async () => {
    const outputs = (await generate(codegenConfig(), false)) as { filename: string; content: string }[];
    const dir = CLIENT_GENERATED;
    // One generated target: the dashboard sends the client package's documents, so it has none of its own.
    expect(new Set(outputs.map((o) => dirname(o.filename)))).toEqual(new Set([dirname(`${dir}x`)]));
    const fresh = new Map(outputs.map((o) => [basename(o.filename), o.content]));
    expect([...fresh.keys()].sort(), dir).toEqual((await readdir(dir)).sort());
    for (const [name, content] of fresh) {
      expect(await readFile(`${dir}${name}`, 'utf8'), `${dir}${name} is stale: run npm run codegen`).toBe(content);
    }
  }, 60_000);

  it('include a persisted-documents manifest the server loads: each key the bare sha-256 hex of its document', async () => {
    const manifest = JSON.parse(await readFile(MANIFEST, 'utf8')) as Record<string, string>;
    const names = Object.values(manifest).map((doc) => /(?:query|mutation|subscription) (\w+)/.exec(doc)?.[1]);
    expect(names.sort()).toEqual(
      [
        'Append',
        'Brief',
        'Capture',
        'Entries',
        'Entry',
        'EntryDetail',
        'Events',
        'FeedEvents',
        'Forget',
        'GraphView',
        'LastEventSeq',
        'Link',
        'Recall',
        'RecallExplained',
        'RecentEntries',
        'SetStatus',
        'Unlink',
        'Update',
      ].sort(),
    );
    for (const [hash, doc] of Object.entries(manifest)) expect(hash).toBe(sha256Hex(doc));
    // What a normalized cache needs in every result, whether the server runs the text or only the hash.
    for (const doc of Object.values(manifest)) {
      for (const set of doc.matchAll(/(?<!subscription [^{]*)\{ (\S+)/g)) expect(set[1], doc).toBe('__typename');
    }
    const trusted = loadTrustedDocuments(MANIFEST);
    expect(trusted.size).toBe(Object.keys(manifest).length);
    for (const [hash, doc] of Object.entries(manifest)) expect(trusted.get(hash)).toBe(doc);
  });
});
