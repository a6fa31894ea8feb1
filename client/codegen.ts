import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { CodegenConfig } from '@graphql-codegen/cli';

// Absolute paths, so the config means the same thing from any working directory (and from a test).
const at = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The server's trusted-documents manifest keys each document by the bare sha-256 hex of its exact
 * text; the preset's own 'sha256' prefixes the key with "sha256:", which the server refuses.
 */
export const sha256Hex = (document: string): string => createHash('sha256').update(document, 'utf8').digest('hex');

/**
 * What the dashboard (web/) sends: a subset of the client's operations, so the client's manifest
 * covers it. Capture and Link also hold the EntryFields and EdgeFields fragments the others spread.
 */
export const DASHBOARD_OPERATIONS = [
  'Append',
  'Brief',
  'Capture',
  'EntryDetail',
  'FeedEvents',
  'Forget',
  'GraphView',
  'LastEventSeq',
  'Link',
  'RecallExplained',
  'RecentEntries',
  'SetStatus',
  'Unlink',
  'Update',
] as const;

export const CLIENT_GENERATED = at('./src/generated/');
export const DASHBOARD_GENERATED = at('../web/src/generated/');

function clientPreset(documents: string[], documentMode?: 'string'): CodegenConfig['generates'][string] {
  return {
    preset: 'client',
    documents,
    presetConfig: {
      fragmentMasking: false,
      persistedDocuments: { mode: 'embedHashInDocument', hashAlgorithm: sha256Hex },
    },
    config: {
      useTypeImports: true,
      enumsAsTypes: true,
      scalars: { DateTime: 'string', JSON: 'unknown' },
      ...(documentMode ? { documentMode } : {}),
    },
  };
}

/**
 * The codegen config. The client gets DocumentNodes (what Apollo and urql take); the dashboard gets
 * its documents as typed strings, which need no graphql-js in the browser bundle, each carrying
 * the same sha-256 the manifest lists.
 */
export function codegenConfig(clientDir = CLIENT_GENERATED, dashboardDir = DASHBOARD_GENERATED): CodegenConfig {
  return {
    schema: at('../schema.graphql'),
    ignoreNoDocuments: false,
    emitLegacyCommonJSImports: false,
    generates: {
      [clientDir]: clientPreset([at('./src/operations/*.graphql')]),
      [dashboardDir]: clientPreset(
        DASHBOARD_OPERATIONS.map((name) => at(`./src/operations/${name}.graphql`)),
        'string',
      ),
    },
  };
}

export default codegenConfig();
