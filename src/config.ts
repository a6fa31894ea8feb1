import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { z } from 'zod';
import { PROFILE_NAMES, type ProfileSettings } from './contract/embeddings.ts';
import { badInput } from './contract/errors.ts';

/** Everything the server and the CLI read from the environment, validated once. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** Hosted libSQL URL template containing `{workspace}`; null for embedded files. */
  dbUrl: string | null;
  dbAuthToken: string | null;
  /** The control database (tokens, audit log); default `<dataDir>/_control.db`. */
  controlDbUrl: string | null;
  redisUrl: string | null;
  /** `required` forces token auth even on loopback. */
  authRequired: boolean;
  /** Mutations per minute per workspace; null means "mode default", 0 turns it off. */
  rateLimit: number | null;
  /** GraphiQL: on, off, or null for the mode default (served in open mode, not with tokens). */
  playground: boolean | null;
  /** Exact origins (scheme://host[:port]) allowed to call the API from other web pages; none by default. */
  corsOrigins: string[];
  /** The bearer token /metrics requires once the server is in token mode; null turns /metrics off there. */
  metricsToken: string | null;
  /** WebSockets and server-sent-event streams one token (or, in open mode, one peer address) may hold at once. */
  maxSocketsPerClient: number;
  /** Connections the server holds at once. */
  maxConnections: number;
  /** Connections one peer address may hold before any of them has authenticated. */
  maxUnauthenticatedPerPeer: number;
  /** Live subscriptions one workspace may hold at once, over every connection and SSE stream. */
  maxSubscriptionsPerWorkspace: number;
  /** Largest answer a GraphQL operation may give, in bytes of JSON; larger ones are refused. */
  maxResponseBytes: number;
  /**
   * Storage quota of each workspace in MB (SPHERE_MAX_WORKSPACE_MB); null for the mode's
   * default (none in open mode, 1024 with tokens), 0 for none at all.
   */
  maxWorkspaceMb: number | null;
  /** A trusted-documents manifest: when set, only the operations it lists run. */
  trustedDocuments: string | null;
  /** Introspection: on, off, or null for the mode default (on in open mode, off with tokens). */
  introspection: boolean | null;
  logLevel: string;
  /** Workspace databases kept open at once; idle ones beyond this are closed, least recently used first. */
  maxOpenWorkspaces: number;
  /** Run the SQL of embedded workspaces' writes on a thread of its own (on by default). */
  writerThread: boolean;
  /** Threads that run embedded workspaces' reads off the event loop; 0 runs them on it. Default: the cores. */
  readerThreads: number;
  /** The embedding binding for semantic recall: off (default), an OpenAI-compatible endpoint, or built-in GloVe. */
  embeddings: EmbeddingsConfig;
  /** The impact index's upkeep: which words get a list, and how often the server looks for new ones. */
  impact: ImpactConfig;
  /** The optional LLM binding: classification fallback and contradiction detection after commit. */
  llm: LlmConfig;
}

export interface LlmConfig {
  kind: 'off' | 'http';
  /** An OpenAI-compatible chat-completions URL, e.g. `http://localhost:11434/v1/chat/completions`. */
  url: string | null;
  model: string | null;
  apiKey: string | null;
  /** Per request; the binding is never on a request's path, so this only bounds its own queue. */
  timeoutMs: number;
  /** Requests in flight at once, over every workspace. */
  concurrency: number;
  /** Let an "updates" answer at or above `supersedeConfidence` become a SUPERSEDES link (INFERRED). */
  supersede: boolean;
  supersedeConfidence: number;
  /** Older entries a new one is compared with. */
  candidates: number;
}

export interface ImpactConfig {
  /** A word gets an impact list once it is in this many entries (and 1 % of them); null: IMPACT_INDEX's. */
  minDocs: number | null;
  /** Postings each new list holds at least; only tests change it (the default is IMPACT_INDEX's). */
  headPostings: number | null;
  /** How often the server looks for words that became frequent, in ms; 0 turns the upkeep off. */
  upkeepMs: number;
}

export interface EmbeddingsConfig {
  kind: 'off' | 'http' | 'glove' | 'onnx';
  url: string | null;
  model: string | null;
  apiKey: string | null;
  /** The endpoint's vector size; null asks it once at start. */
  dim: number | null;
  /** The GloVe package's JSON or directory; null looks for the installed package. */
  glovePath: string | null;
  /** Where converted model tables are kept; null: `<dataDir>/_models`. */
  modelsDir: string | null;
  timeoutMs: number;
  batchSize: number;
  /** Bytes all workspaces' cached vectors may take together. */
  cacheBytes: number;
  /** How long a recall waits for its query's vector before it goes on by keyword (http, onnx). */
  queryTimeoutMs?: number;
  /** onnx: the model folder (`model.onnx` + `tokenizer.json`). */
  modelDir?: string | null;
  /** onnx: threads one inference may use. */
  threads?: number;
  /** The model profile and any part of it set by a variable (http, onnx). */
  profile?: ProfileSettings;
}

// Unset and blank variables both mean "use the default".
const optional = z
  .string()
  .optional()
  .transform((s) => (s?.trim() ? s.trim() : undefined));

const envSchema = z.object({
  PORT: optional.pipe(z.coerce.number<string | undefined>().int().min(0).max(65535).default(4000)),
  HOST: optional.pipe(z.string().default('127.0.0.1')),
  SPHERE_DATA_DIR: optional.pipe(z.string().default('./data')),
  SPHERE_DB_URL: optional.pipe(
    z
      .string()
      .refine((s) => s.includes('{workspace}'), 'must contain {workspace}')
      .optional(),
  ),
  SPHERE_DB_AUTH_TOKEN: optional,
  SPHERE_CONTROL_DB_URL: optional,
  SPHERE_INTROSPECTION: optional.pipe(z.enum(['on', 'off']).optional()),
  REDIS_URL: optional,
  SPHERE_AUTH: optional.pipe(z.enum(['required', 'optional']).optional()),
  SPHERE_RATE_LIMIT: optional.pipe(z.coerce.number<string | undefined>().int().min(0).optional()),
  SPHERE_PLAYGROUND: optional.pipe(z.enum(['on', 'off']).optional()),
  SPHERE_CORS_ORIGINS: optional.pipe(
    z
      .string()
      .transform((s) =>
        s
          .split(',')
          .map((o) => o.trim().toLowerCase())
          .filter(Boolean),
      )
      .pipe(z.array(z.string().refine(isExactOrigin, 'must be exact origins such as https://app.example.com')))
      .optional(),
  ),
  SPHERE_METRICS_TOKEN: optional.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  SPHERE_MAX_SOCKETS_PER_CLIENT: optional.pipe(z.coerce.number<string | undefined>().int().min(1).default(256)),
  SPHERE_MAX_CONNECTIONS: optional.pipe(z.coerce.number<string | undefined>().int().min(1).default(4_096)),
  SPHERE_MAX_UNAUTHENTICATED_PER_PEER: optional.pipe(z.coerce.number<string | undefined>().int().min(1).default(128)),
  SPHERE_MAX_SUBSCRIPTIONS_PER_WORKSPACE: optional.pipe(
    z.coerce.number<string | undefined>().int().min(1).default(10_000),
  ),
  SPHERE_TRUSTED_DOCUMENTS: optional,
  SPHERE_MAX_RESPONSE_BYTES: optional.pipe(
    z.coerce
      .number<string | undefined>()
      .int()
      .min(1024)
      .default(16 * 1024 * 1024),
  ),
  SPHERE_MAX_WORKSPACE_MB: optional.pipe(z.coerce.number<string | undefined>().min(0).optional()),
  LOG_LEVEL: optional.pipe(z.string().default('info')),
  SPHERE_MAX_OPEN_WORKSPACES: optional.pipe(z.coerce.number<string | undefined>().int().min(1).default(256)),
  SPHERE_WRITER_THREAD: optional.pipe(z.enum(['on', 'off']).default('on')),
  SPHERE_READER_THREADS: optional.pipe(
    z.coerce.number<string | undefined>().int().min(0).max(64).default(availableParallelism()),
  ),
  SPHERE_EMBEDDINGS: optional.pipe(z.enum(['off', 'http', 'glove', 'onnx']).default('off')),
  SPHERE_EMBEDDINGS_MODEL_DIR: optional,
  SPHERE_EMBEDDINGS_THREADS: optional.pipe(z.coerce.number<string | undefined>().int().min(1).max(64).default(1)),
  SPHERE_EMBEDDINGS_QUERY_TIMEOUT_MS: optional.pipe(
    z.coerce.number<string | undefined>().int().min(50).max(60_000).default(2_000),
  ),
  SPHERE_EMBEDDINGS_PROFILE: optional.pipe(z.enum(PROFILE_NAMES).optional()),
  SPHERE_EMBEDDINGS_POOLING: optional.pipe(z.enum(['mean', 'cls']).optional()),
  SPHERE_EMBEDDINGS_MAX_TOKENS: optional.pipe(z.coerce.number<string | undefined>().int().min(8).max(8192).optional()),
  // Not trimmed: a prefix's trailing space is part of it (`query: `).
  SPHERE_EMBEDDINGS_QUERY_PREFIX: z
    .string()
    .max(1000)
    .optional()
    .transform((s) => (s?.trim() ? s : undefined)),
  SPHERE_EMBEDDINGS_DOCUMENT_PREFIX: z
    .string()
    .max(1000)
    .optional()
    .transform((s) => (s?.trim() ? s : undefined)),
  SPHERE_EMBEDDINGS_INPUT_TYPE: optional.pipe(z.enum(['on', 'off']).optional()),
  SPHERE_EMBEDDINGS_DUPLICATE: optional.pipe(z.coerce.number<string | undefined>().min(-1).max(1).optional()),
  SPHERE_EMBEDDINGS_SIMILAR: optional.pipe(z.coerce.number<string | undefined>().min(-1).max(1).optional()),
  SPHERE_EMBEDDINGS_LINK: optional.pipe(z.coerce.number<string | undefined>().min(-1).max(1).optional()),
  SPHERE_EMBEDDINGS_MMR_FLOOR: optional.pipe(z.coerce.number<string | undefined>().min(-1).max(0.99).optional()),
  SPHERE_EMBEDDINGS_URL: optional.pipe(z.url({ protocol: /^https?$/ }).optional()),
  SPHERE_EMBEDDINGS_MODEL: optional,
  SPHERE_EMBEDDINGS_API_KEY: optional,
  SPHERE_EMBEDDINGS_DIM: optional.pipe(z.coerce.number<string | undefined>().int().min(1).max(8192).optional()),
  SPHERE_EMBEDDINGS_TIMEOUT_MS: optional.pipe(z.coerce.number<string | undefined>().int().min(100).default(10_000)),
  SPHERE_EMBEDDINGS_BATCH: optional.pipe(z.coerce.number<string | undefined>().int().min(1).max(2048).default(64)),
  SPHERE_EMBEDDINGS_CACHE_MB: optional.pipe(z.coerce.number<string | undefined>().int().min(1).default(512)),
  SPHERE_GLOVE_PATH: optional,
  SPHERE_MODELS_DIR: optional,
  SPHERE_IMPACT_MIN_DOCS: optional.pipe(z.coerce.number<string | undefined>().int().min(1).optional()),
  SPHERE_IMPACT_UPKEEP_SECONDS: optional.pipe(z.coerce.number<string | undefined>().min(0).default(60)),
  SPHERE_LLM: optional.pipe(z.enum(['off', 'http']).default('off')),
  SPHERE_LLM_URL: optional.pipe(z.url({ protocol: /^https?$/ }).optional()),
  SPHERE_LLM_MODEL: optional,
  SPHERE_LLM_API_KEY: optional,
  SPHERE_LLM_TIMEOUT_MS: optional.pipe(z.coerce.number<string | undefined>().int().min(100).default(60_000)),
  SPHERE_LLM_CONCURRENCY: optional.pipe(z.coerce.number<string | undefined>().int().min(1).max(64).default(2)),
  SPHERE_LLM_SUPERSEDE: optional.pipe(z.enum(['on', 'off']).default('off')),
  SPHERE_LLM_SUPERSEDE_CONFIDENCE: optional.pipe(z.coerce.number<string | undefined>().min(0).max(1).default(0.9)),
  SPHERE_LLM_CANDIDATES: optional.pipe(z.coerce.number<string | undefined>().int().min(1).max(10).default(5)),
});

/** Every environment variable the configuration reads (`mini-sphere help serve` lists each). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(envSchema.shape);

/** `scheme://host[:port]` (lower-cased) and nothing else: no path, no wildcard, never `*` or `null`. */
function isExactOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value && !url.hostname.includes('*')
    );
  } catch {
    return false;
  }
}

/** Reads and validates the configuration; throws BAD_USER_INPUT naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw badInput(`invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  if (e.SPHERE_EMBEDDINGS === 'http' && (!e.SPHERE_EMBEDDINGS_URL || !e.SPHERE_EMBEDDINGS_MODEL)) {
    throw badInput(
      'invalid configuration: SPHERE_EMBEDDINGS=http needs SPHERE_EMBEDDINGS_URL and SPHERE_EMBEDDINGS_MODEL',
    );
  }
  if (e.SPHERE_LLM === 'http' && (!e.SPHERE_LLM_URL || !e.SPHERE_LLM_MODEL)) {
    throw badInput('invalid configuration: SPHERE_LLM=http needs SPHERE_LLM_URL and SPHERE_LLM_MODEL');
  }
  if (e.SPHERE_EMBEDDINGS === 'onnx' && !e.SPHERE_EMBEDDINGS_MODEL_DIR) {
    throw badInput(
      'invalid configuration: SPHERE_EMBEDDINGS=onnx needs SPHERE_EMBEDDINGS_MODEL_DIR (a model.onnx and its tokenizer.json)',
    );
  }
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: resolve(e.SPHERE_DATA_DIR),
    dbUrl: e.SPHERE_DB_URL ?? null,
    dbAuthToken: e.SPHERE_DB_AUTH_TOKEN ?? null,
    controlDbUrl: e.SPHERE_CONTROL_DB_URL ?? null,
    redisUrl: e.REDIS_URL ?? null,
    authRequired: e.SPHERE_AUTH === 'required',
    rateLimit: e.SPHERE_RATE_LIMIT ?? null,
    playground: e.SPHERE_PLAYGROUND === undefined ? null : e.SPHERE_PLAYGROUND === 'on',
    corsOrigins: e.SPHERE_CORS_ORIGINS ?? [],
    metricsToken: e.SPHERE_METRICS_TOKEN ?? null,
    maxSocketsPerClient: e.SPHERE_MAX_SOCKETS_PER_CLIENT,
    maxSubscriptionsPerWorkspace: e.SPHERE_MAX_SUBSCRIPTIONS_PER_WORKSPACE,
    maxConnections: e.SPHERE_MAX_CONNECTIONS,
    maxUnauthenticatedPerPeer: e.SPHERE_MAX_UNAUTHENTICATED_PER_PEER,
    maxResponseBytes: e.SPHERE_MAX_RESPONSE_BYTES,
    maxWorkspaceMb: e.SPHERE_MAX_WORKSPACE_MB ?? null,
    trustedDocuments: e.SPHERE_TRUSTED_DOCUMENTS ?? null,
    introspection: e.SPHERE_INTROSPECTION === undefined ? null : e.SPHERE_INTROSPECTION === 'on',
    logLevel: e.LOG_LEVEL,
    maxOpenWorkspaces: e.SPHERE_MAX_OPEN_WORKSPACES,
    writerThread: e.SPHERE_WRITER_THREAD === 'on',
    readerThreads: e.SPHERE_READER_THREADS,
    embeddings: {
      kind: e.SPHERE_EMBEDDINGS,
      url: e.SPHERE_EMBEDDINGS_URL ?? null,
      model: e.SPHERE_EMBEDDINGS_MODEL ?? null,
      apiKey: e.SPHERE_EMBEDDINGS_API_KEY ?? null,
      dim: e.SPHERE_EMBEDDINGS_DIM ?? null,
      glovePath: e.SPHERE_GLOVE_PATH ? resolve(e.SPHERE_GLOVE_PATH) : null,
      modelsDir: e.SPHERE_MODELS_DIR ? resolve(e.SPHERE_MODELS_DIR) : null,
      timeoutMs: e.SPHERE_EMBEDDINGS_TIMEOUT_MS,
      batchSize: e.SPHERE_EMBEDDINGS_BATCH,
      cacheBytes: e.SPHERE_EMBEDDINGS_CACHE_MB * 1024 * 1024,
      queryTimeoutMs: e.SPHERE_EMBEDDINGS_QUERY_TIMEOUT_MS,
      modelDir: e.SPHERE_EMBEDDINGS_MODEL_DIR ? resolve(e.SPHERE_EMBEDDINGS_MODEL_DIR) : null,
      threads: e.SPHERE_EMBEDDINGS_THREADS,
      profile: {
        profile: e.SPHERE_EMBEDDINGS_PROFILE ?? null,
        pooling: e.SPHERE_EMBEDDINGS_POOLING ?? null,
        maxTokens: e.SPHERE_EMBEDDINGS_MAX_TOKENS ?? null,
        queryPrefix: e.SPHERE_EMBEDDINGS_QUERY_PREFIX ?? null,
        documentPrefix: e.SPHERE_EMBEDDINGS_DOCUMENT_PREFIX ?? null,
        inputType: e.SPHERE_EMBEDDINGS_INPUT_TYPE === undefined ? null : e.SPHERE_EMBEDDINGS_INPUT_TYPE === 'on',
        duplicate: e.SPHERE_EMBEDDINGS_DUPLICATE ?? null,
        similar: e.SPHERE_EMBEDDINGS_SIMILAR ?? null,
        link: e.SPHERE_EMBEDDINGS_LINK ?? null,
        mmrFloor: e.SPHERE_EMBEDDINGS_MMR_FLOOR ?? null,
      },
    },
    impact: {
      minDocs: e.SPHERE_IMPACT_MIN_DOCS ?? null,
      headPostings: null,
      upkeepMs: Math.round(e.SPHERE_IMPACT_UPKEEP_SECONDS * 1000),
    },
    llm: {
      kind: e.SPHERE_LLM,
      url: e.SPHERE_LLM_URL ?? null,
      model: e.SPHERE_LLM_MODEL ?? null,
      apiKey: e.SPHERE_LLM_API_KEY ?? null,
      timeoutMs: e.SPHERE_LLM_TIMEOUT_MS,
      concurrency: e.SPHERE_LLM_CONCURRENCY,
      supersede: e.SPHERE_LLM_SUPERSEDE === 'on',
      supersedeConfidence: e.SPHERE_LLM_SUPERSEDE_CONFIDENCE,
      candidates: e.SPHERE_LLM_CANDIDATES,
    },
    ...overrides,
  };
}
