import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import type { Plugin } from 'graphql-yoga';
import { badInput } from '../contract/errors.ts';

/** The largest manifest read, and the most documents in it. */
const MANIFEST_MAX_BYTES = 16 * 1024 * 1024;
const DOCUMENTS_MAX = 10_000;

/**
 * Trusted documents: with SPHERE_TRUSTED_DOCUMENTS set, the server runs only the operations
 * its manifest lists, whatever a client sends. The manifest is a JSON object of
 * `{ "<sha-256 hex of the document>": "<document>" }` (graphql-codegen's persisted-documents
 * file), and clients send `extensions: { persistedQuery: { version: 1, sha256Hash } }`
 * instead of the query text (Apollo's persisted-query form).
 */
export interface TrustedDocuments {
  /** The listed document with this hash, or null. */
  get(hash: string): string | null;
  readonly size: number;
}

/** Reads and checks a manifest; BAD_USER_INPUT naming the problem when it is unusable. */
export function loadTrustedDocuments(path: string): TrustedDocuments {
  let parsed: unknown;
  try {
    if (statSync(path).size > MANIFEST_MAX_BYTES) throw new Error(`larger than ${MANIFEST_MAX_BYTES} bytes`);
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw badInput(`SPHERE_TRUSTED_DOCUMENTS: cannot read ${path}: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw badInput(`SPHERE_TRUSTED_DOCUMENTS: ${path} must be a JSON object of { "<sha256 hex>": "<document>" }`);
  }
  const documents = new Map<string, string>();
  for (const [hash, document] of Object.entries(parsed)) {
    if (typeof document !== 'string' || !/^[0-9a-f]{64}$/.test(hash)) {
      throw badInput(
        `SPHERE_TRUSTED_DOCUMENTS: ${path}: entry ${JSON.stringify(hash)} is not "<sha256 hex>": "<document>"`,
      );
    }
    // A hash that is not the document's would let the manifest say one thing and run another.
    if (createHash('sha256').update(document, 'utf8').digest('hex') !== hash) {
      throw badInput(`SPHERE_TRUSTED_DOCUMENTS: ${path}: ${hash} is not the sha-256 of its document`);
    }
    documents.set(hash, document);
  }
  if (documents.size > DOCUMENTS_MAX) {
    throw badInput(`SPHERE_TRUSTED_DOCUMENTS: ${path} lists more than ${DOCUMENTS_MAX} documents`);
  }
  return { get: (hash) => documents.get(hash) ?? null, size: documents.size };
}

/** The hash a request names (`extensions.persistedQuery.sha256Hash`), or null. */
export function persistedHashOf(params: { extensions?: Record<string, unknown> | null }): string | null {
  const pq = (params.extensions as { persistedQuery?: { version?: unknown; sha256Hash?: unknown } } | undefined)
    ?.persistedQuery;
  return pq?.version === 1 && typeof pq.sha256Hash === 'string' ? pq.sha256Hash : null;
}

export const TRUSTED_ONLY_MESSAGE =
  'this server runs trusted documents only: send extensions.persistedQuery.sha256Hash of a listed document, without a query';

/** The Yoga plugin for HTTP (plain and SSE); WebSocket operations are resolved in ws.ts. */
export function useTrustedDocuments(documents: TrustedDocuments): Plugin {
  return usePersistedOperations({
    getPersistedOperation: (hash) => documents.get(hash),
    allowArbitraryOperations: false,
    extractPersistedOperationId: (params) => persistedHashOf(params),
    customErrors: {
      persistedQueryOnly: { message: TRUSTED_ONLY_MESSAGE, extensions: { code: 'PERSISTED_QUERY_ONLY' } },
      notFound: {
        message: 'no trusted document has this sha256Hash',
        extensions: { code: 'PERSISTED_QUERY_NOT_IN_LIST' },
      },
      keyNotFound: {
        message: 'send extensions.persistedQuery { version: 1, sha256Hash } of a trusted document',
        extensions: { code: 'PERSISTED_QUERY_ID_REQUIRED' },
      },
    },
  }) as Plugin;
}
