import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { EmbeddingsConfig } from '../../src/config.ts';
import { normalize } from '../../src/memory/embeddings/embedder.ts';
import { GLOVE_WORDS, gloveModelName } from '../../src/memory/embeddings/factory.ts';
import { embeddingWords, gloveVector } from '../../src/memory/embeddings/glove.ts';
import {
  GLOVE_PACKAGE,
  type GloveTable,
  gloveJsonPath,
  loadGloveTable,
} from '../../src/memory/embeddings/glove-table.ts';
import { embeddingsConfig } from './embeddings-config.ts';

/** A server configuration embedding through `endpoint` as model `model` (`SPHERE_EMBEDDINGS=http`). */
export function httpEmbeddingsConfig(
  endpoint: Pick<EmbeddingsServer, 'url'>,
  model: string,
  extra: Partial<EmbeddingsConfig> = {},
): { embeddings: EmbeddingsConfig } {
  return { embeddings: embeddingsConfig({ kind: 'http', url: endpoint.url, model, ...extra }) };
}

/** One request the endpoint answered or refused. */
export interface EmbeddingsRequest {
  model: string;
  input: string[];
  /** The request's `input_type`, when it sent one. */
  inputType: string | null;
  status: number;
}

/**
 * The sentence model the onnx tests use (scripts/fetch-model.sh puts it in
 * .models/all-MiniLM-L6-v2; SPHERE_TEST_ONNX_MODEL_DIR points elsewhere). Missing, it skips
 * the tests with a printed reason on a developer's machine and fails them in CI.
 */
export function testModelDir(): { dir: string | null; reason: string } {
  const dir = resolve(process.env.SPHERE_TEST_ONNX_MODEL_DIR ?? join(process.cwd(), '.models', 'all-MiniLM-L6-v2'));
  if (existsSync(join(dir, 'model.onnx')) && existsSync(join(dir, 'tokenizer.json'))) return { dir, reason: '' };
  const reason = `no sentence model at ${dir} (run \`bash scripts/fetch-model.sh\`)`;
  if (process.env.CI === 'true') throw new Error(`${reason}; CI must fetch it`);
  console.warn(`skipping: ${reason}`);
  return { dir: null, reason };
}

/** What serves the endpoint's vectors instead of GloVe or hashing: a real model's embedder. */
export type EndpointModel = (texts: string[]) => Promise<Float32Array[]>;

/**
 * A real OpenAI-compatible `/v1/embeddings` endpoint on port 0. Its vectors are real: the
 * GloVe table's (a plain mean of word vectors) when the vectors are at hand, otherwise a
 * deterministic hashed bag of words (`source` says which). The model name seeds the
 * hashing, so two models give different vectors. Knobs make it slow or failing, live.
 */
export interface EmbeddingsServer {
  /** http://127.0.0.1:<port>/v1/embeddings */
  url: string;
  source: 'glove' | 'hashed' | 'model';
  dim: number;
  requests: EmbeddingsRequest[];
  /** Milliseconds to wait before answering. */
  delayMs: number;
  /** An HTTP status to answer with instead of vectors (e.g. 500), or 0 to answer. */
  failStatus: number;
  /** Requests that carried more than one text (documents batched together). */
  readonly batched: number;
  close(): Promise<void>;
}

const HASHED_DIM = 64;

/** Each word lands on a few signed dimensions chosen by a hash of (model, word). */
function hashedVector(model: string, text: string): Float32Array {
  const v = new Float32Array(HASHED_DIM);
  for (const word of embeddingWords(text)) {
    const h = createHash('sha256').update(`${model}\u0000${word}`).digest();
    for (let i = 0; i < 3; i++) v[h[i]! % HASHED_DIM]! += h[8 + i]! & 1 ? 1 : -1;
  }
  return normalize(v);
}

async function gloveTable(): Promise<GloveTable | null> {
  const source = process.env.SPHERE_GLOVE_PATH ?? join(process.cwd(), 'node_modules', GLOVE_PACKAGE);
  if (!gloveJsonPath(source)) return null;
  const models = process.env.SPHERE_MODELS_DIR ?? join(tmpdir(), 'mini-sphere-models');
  // The server's own converted table: converting again would stream the 300 MB JSON twice.
  return loadGloveTable(source, join(models, `${gloveModelName(GLOVE_WORDS)}.i8`), GLOVE_WORDS);
}

async function readJson(
  req: IncomingMessage,
): Promise<{ model?: string; input?: string | string[]; input_type?: string }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/**
 * A port nothing listens on (the system's pick, released at once): an endpoint that is
 * down, until `startEmbeddingsServer({ port })` brings it up there.
 */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** The endpoint's URL on `port`, whether or not it is up. */
export function embeddingsUrl(port: number): string {
  return `http://127.0.0.1:${port}/v1/embeddings`;
}

export async function startEmbeddingsServer(
  opts: { glove?: boolean; port?: number; model?: { embed: EndpointModel; dim: number } } = {},
): Promise<EmbeddingsServer> {
  const table = opts.glove === false || opts.model ? null : await gloveTable();
  const embed = (model: string, text: string) =>
    table ? gloveVector(table, embeddingWords(text), () => 1) : hashedVector(model, text);
  const state: EmbeddingsServer = {
    url: '',
    source: opts.model ? 'model' : table ? 'glove' : 'hashed',
    dim: opts.model ? opts.model.dim : table ? table.dims : HASHED_DIM,
    requests: [],
    delayMs: 0,
    failStatus: 0,
    get batched() {
      return this.requests.filter((r) => r.input.length > 1).length;
    },
    close: async () => {},
  };
  const server: Server = createServer(async (req, res) => {
    const body = await readJson(req).catch(
      () => ({}) as { model?: string; input?: string | string[]; input_type?: string },
    );
    const model = String(body.model ?? '');
    const inputType = body.input_type == null ? null : String(body.input_type);
    const input = Array.isArray(body.input) ? body.input.map(String) : [String(body.input ?? '')];
    if (state.delayMs > 0) await new Promise((r) => setTimeout(r, state.delayMs));
    const status = req.url !== '/v1/embeddings' || req.method !== 'POST' ? 404 : state.failStatus || 200;
    state.requests.push({ model, input, inputType, status });
    if (res.destroyed) return;
    if (status !== 200) {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'embeddings unavailable' } }));
      return;
    }
    const vectors = opts.model ? await opts.model.embed(input) : input.map((text) => embed(model, text));
    const data = vectors.map((v, index) => ({ object: 'embedding', index, embedding: [...v] }));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ object: 'list', model, data, usage: { prompt_tokens: 0, total_tokens: 0 } }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', resolve);
  });
  state.url = embeddingsUrl((server.address() as AddressInfo).port);
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
