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

/** The codegen config, with the generated files going to `outDir` (a directory path ending in /). */
export function codegenConfig(outDir = at('./src/generated/')): CodegenConfig {
  return {
    schema: at('../schema.graphql'),
    documents: [at('./src/operations/*.graphql')],
    ignoreNoDocuments: false,
    emitLegacyCommonJSImports: false,
    generates: {
      [outDir]: {
        preset: 'client',
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
