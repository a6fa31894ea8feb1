import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { CodegenConfig } from '@graphql-codegen/cli';
import { addTypenameSelectionDocumentTransform } from '@graphql-codegen/client-preset';

// Absolute paths, so the config means the same thing from any working directory (and from a test).
const at = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The server's trusted-documents manifest keys each document by the bare sha-256 hex of its exact
 * text; the preset's own 'sha256' prefixes the key with "sha256:", which the server refuses.
 */
export const sha256Hex = (document: string): string => createHash('sha256').update(document, 'utf8').digest('hex');

export const CLIENT_GENERATED = at('./src/generated/');

/**
 * The client package's generated module and manifest. Every selection set selects `__typename`, in the
 * manifest too: a normalized cache (Apollo's, urql's graphcache) needs it in every result, and a server that
 * runs trusted documents only runs the manifest's text, not the text a cache would have added it to.
 */
export function codegenConfig(clientDir = CLIENT_GENERATED): CodegenConfig {
  return {
    schema: at('../schema.graphql'),
    ignoreNoDocuments: false,
    emitLegacyCommonJSImports: false,
    generates: {
      [clientDir]: {
        preset: 'client',
        documents: [at('./src/operations/*.graphql')],
        documentTransforms: [addTypenameSelectionDocumentTransform],
        presetConfig: {
          fragmentMasking: false,
          persistedDocuments: { mode: 'embedHashInDocument', hashAlgorithm: sha256Hex },
        },
        config: {
          useTypeImports: true,
          enumsAsTypes: true,
          scalars: { DateTime: 'string', JSON: 'unknown' },
        },
      },
    },
  };
}

export default codegenConfig();
