import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Embedder, EmbedPurpose } from './embedder.ts';
import { type ModelProfile, type SemanticThresholds, vectorShapingKey } from './profile.ts';

export interface OnnxEmbedderOptions {
  /** A folder holding the model (`model.onnx`, or one quantized `*.onnx`) and its `tokenizer.json`. */
  dir: string;
  /** The vectors' model name; null names them after the folder, the profile and the model file. */
  name: string | null;
  profile: ModelProfile;
  /** Threads onnxruntime may use for one batch (the event loop keeps its own). */
  threads: number;
  /** Texts per inference call: a query waits behind at most one such call. */
  chunk: number;
  /** Document texts that may wait; beyond it an embedding is refused (the queue retries later). */
  maxPendingTexts: number;
  /** How long a recall's query may wait for its vector before recall goes on by keyword. */
  queryTimeoutMs: number;
}

/** The files of a model folder: the ONNX graph (the plain one, else the only one) and the tokenizer. */
export function modelFiles(dir: string): { model: string; tokenizer: string; tokenizerConfig: string | null } {
  if (!existsSync(dir)) throw new Error(`SPHERE_EMBEDDINGS_MODEL_DIR ${dir} does not exist`);
  const look = [dir, join(dir, 'onnx')];
  let model: string | null = null;
  for (const d of look) {
    if (!existsSync(d)) continue;
    if (existsSync(join(d, 'model.onnx'))) {
      model = join(d, 'model.onnx');
      break;
    }
    const onnx = readdirSync(d).filter((f) => f.endsWith('.onnx'));
    if (onnx.length === 1) {
      model = join(d, onnx[0]!);
      break;
    }
    if (onnx.length > 1) {
      throw new Error(`${d} holds several .onnx files (${onnx.join(', ')}): keep one, or name it model.onnx`);
    }
  }
  if (!model) throw new Error(`${dir} holds no model.onnx`);
  const tokenizer = join(dir, 'tokenizer.json');
  if (!existsSync(tokenizer)) throw new Error(`${dir} holds no tokenizer.json`);
  const config = join(dir, 'tokenizer_config.json');
  return { model, tokenizer, tokenizerConfig: existsSync(config) ? config : null };
}

/**
 * The name the vectors of a model folder are stored under: the folder's name (or the one
 * configured), the profile, and a digest of the model file's size and of everything in the
 * profile that shapes a vector (pooling, prefixes, truncation). Any change to those names
 * other vectors, so the stored ones are rebuilt, never mixed. Known without loading the model.
 */
export function onnxModelName(opts: Pick<OnnxEmbedderOptions, 'dir' | 'name' | 'profile'>): string {
  let size = 0;
  try {
    size = statSync(modelFiles(opts.dir).model).size;
  } catch {
    // A missing model fails at load with its own message; the name only needs to be stable.
  }
  const digest = createHash('sha256')
    .update(`${size}\n${vectorShapingKey(opts.profile)}`)
    .digest('hex')
    .slice(0, 10);
  return `${opts.name ?? basename(opts.dir)}-${opts.profile.name}-${digest}`;
}

interface Job {
  texts: readonly string[];
  query: boolean;
  resolve: (vectors: Float32Array[]) => void;
  reject: (error: Error) => void;
  /** Set once a query has waited too long: it is dropped instead of run. */
  dropped: boolean;
}

interface Reply {
  id: number;
  data?: Float32Array;
  dim?: number;
  error?: string;
}

/**
 * A sentence model run in-process by onnxruntime on a thread of its own: texts are
 * tokenized by the model's own tokenizer.json (@huggingface/tokenizers), run in chunks,
 * pooled and normalized there, so the event loop only passes texts and vectors. Queries go
 * ahead of waiting documents; documents wait in a bounded line. Captures get their vectors
 * from the background queue (not inline), as with an endpoint.
 */
export class OnnxEmbedder implements Embedder {
  readonly kind = 'onnx' as const;
  readonly inline = false;
  readonly model: string;
  readonly profile: ModelProfile;
  dim = 0;
  readonly bytes: number;
  readonly #opts: OnnxEmbedderOptions;
  readonly #files: ReturnType<typeof modelFiles>;
  #worker: Worker | null = null;
  #ready: Promise<void> | null = null;
  readonly #queries: Job[] = [];
  readonly #documents: Job[] = [];
  #pendingTexts = 0;
  #running: { id: number; job: Job } | null = null;
  #ids = 0;
  #closed = false;

  private constructor(opts: OnnxEmbedderOptions) {
    this.#opts = opts;
    this.profile = opts.profile;
    this.#files = modelFiles(opts.dir);
    this.model = onnxModelName(opts);
    this.bytes = statSync(this.#files.model).size + statSync(this.#files.tokenizer).size;
  }

  get thresholds(): SemanticThresholds {
    return this.profile.thresholds;
  }

  /** Starts the thread and loads the model; resolves once a probe text has given the vector size. */
  static async load(opts: OnnxEmbedderOptions): Promise<OnnxEmbedder> {
    const embedder = new OnnxEmbedder(opts);
    await embedder.#start();
    return embedder;
  }

  #start(): Promise<void> {
    const require = createRequire(import.meta.url);
    const { queryPrefix, documentPrefix, pooling, maxTokens, normalize } = this.profile;
    const worker = new Worker(ONNX_THREAD_SOURCE, {
      eval: true,
      workerData: {
        ort: require.resolve('onnxruntime-node'),
        tokenizers: require.resolve('@huggingface/tokenizers'),
        files: this.#files,
        profile: { queryPrefix, documentPrefix, pooling, maxTokens, normalize },
        threads: this.#opts.threads,
      },
    });
    this.#worker = worker;
    const ready = new Promise<void>((resolve, reject) => {
      worker.once('message', (m: Reply) => {
        if (m.error !== undefined) reject(new Error(`onnx model ${this.#files.model}: ${m.error}`));
        else {
          this.dim = m.dim!;
          resolve();
        }
      });
      worker.once('error', reject);
    });
    this.#ready = ready.then(() => {
      worker.on('message', (m: Reply) => this.#answer(m));
      worker.unref();
    });
    worker.on('error', (error) => this.#stopped(worker, error));
    worker.on('exit', () => this.#stopped(worker, new Error('the embedding thread has stopped')));
    return this.#ready;
  }

  embed(
    _db: unknown,
    texts: readonly string[],
    purpose: EmbedPurpose,
  ): Promise<{ vectors: Float32Array[]; docs: number }> {
    if (this.#closed) return Promise.reject(new Error('the embedder is closed'));
    if (texts.length === 0) return Promise.resolve({ vectors: [], docs: 0 });
    const query = purpose === 'query';
    if (!query && this.#pendingTexts + texts.length > this.#opts.maxPendingTexts) {
      return Promise.reject(new Error(`embedding queue full (${this.#pendingTexts} texts waiting)`));
    }
    // A chunk is padded to its longest text: chunks of texts of like length waste little
    // (LoCoMo's turns in the order stored: half the time went to padding).
    const order = texts.map((_, i) => i).sort((a, b) => texts[a]!.length - texts[b]!.length);
    const parts: Promise<Float32Array[]>[] = [];
    const { chunk } = this.#opts;
    for (let i = 0; i < order.length; i += chunk) {
      parts.push(
        this.#enqueue(
          order.slice(i, i + chunk).map((j) => texts[j]!),
          query,
        ),
      );
    }
    return Promise.all(parts).then((p) => {
      const vectors = new Array<Float32Array>(texts.length);
      for (const [i, v] of p.flat().entries()) vectors[order[i]!] = v;
      return { vectors, docs: 0 };
    });
  }

  #enqueue(texts: readonly string[], query: boolean): Promise<Float32Array[]> {
    return new Promise((resolve, reject) => {
      const job: Job = { texts, query, resolve, reject, dropped: false };
      if (query) {
        const timer = setTimeout(() => {
          job.dropped = true;
          reject(new Error(`query embedding waited over ${this.#opts.queryTimeoutMs} ms`));
        }, this.#opts.queryTimeoutMs);
        timer.unref();
        job.resolve = (v) => {
          clearTimeout(timer);
          resolve(v);
        };
        job.reject = (e) => {
          clearTimeout(timer);
          reject(e);
        };
        this.#queries.push(job);
      } else {
        this.#pendingTexts += texts.length;
        this.#documents.push(job);
      }
      this.#next();
    });
  }

  /** Sends the next job when the thread is free: queries first. */
  #next(): void {
    if (this.#running || this.#closed) return;
    // Queries that waited past their timeout are gone already: skip them.
    while (this.#queries[0]?.dropped) this.#queries.shift();
    const job = this.#queries.shift() ?? this.#documents.shift();
    if (!job) return;
    if (!job.query) this.#pendingTexts -= job.texts.length;
    if (!this.#worker) {
      void this.#start().catch((error: Error) => this.#failAll(error));
    }
    const id = ++this.#ids;
    this.#running = { id, job };
    const worker = this.#worker!;
    void this.#ready!.then(
      () => {
        if (this.#running?.id !== id) return;
        worker.ref();
        worker.postMessage({ id, texts: job.texts, query: job.query });
      },
      () => undefined,
    );
  }

  #answer(m: Reply): void {
    const running = this.#running;
    if (!running || running.id !== m.id) return;
    this.#running = null;
    this.#worker?.unref();
    if (m.error !== undefined) running.job.reject(new Error(`onnx embedding failed: ${m.error}`));
    else {
      const dim = m.dim!;
      const vectors: Float32Array[] = [];
      for (let i = 0; i < running.job.texts.length; i++) vectors.push(m.data!.slice(i * dim, (i + 1) * dim));
      running.job.resolve(vectors);
    }
    this.#next();
  }

  /** The thread died (out of memory, a broken model): fail what it held; the next job starts a new one. */
  #stopped(worker: Worker, error: Error): void {
    if (this.#worker !== worker) return;
    this.#worker = null;
    this.#ready = null;
    const running = this.#running;
    this.#running = null;
    running?.job.reject(error);
    if (!this.#closed) this.#next();
  }

  #failAll(error: Error): void {
    const running = this.#running;
    this.#running = null;
    running?.job.reject(error);
    for (const job of this.#queries.splice(0)) job.reject(error);
    for (const job of this.#documents.splice(0)) job.reject(error);
    this.#pendingTexts = 0;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#failAll(new Error('the embedder is closed'));
    const worker = this.#worker;
    this.#worker = null;
    await worker?.terminate();
  }
}

/**
 * The thread's code: loads the tokenizer and the ONNX session once, answers the probe with
 * the vector size, then embeds each job: prefix, tokenize, cut to maxTokens (keeping the
 * closing special token), pad to the longest text of the chunk, run, pool (mean over the
 * attention mask, or the first token), normalize.
 */
const ONNX_THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const ort = require(workerData.ort);
const { Tokenizer } = require(workerData.tokenizers);
const { files, profile, threads } = workerData;
// Texts are cut before tokenizing too, so one huge entry costs no more than a long one.
const MAX_CHARS = profile.maxTokens * 12;
let session, tokenizer, feedsOf, padId = 0;

function encode(text) {
  const ids = tokenizer.encode(text.length > MAX_CHARS ? text.slice(0, MAX_CHARS) : text).ids;
  if (ids.length <= profile.maxTokens) return ids;
  const cut = ids.slice(0, profile.maxTokens - 1);
  cut.push(ids[ids.length - 1]);
  return cut;
}

async function embed(texts, query) {
  const prefix = query ? profile.queryPrefix : profile.documentPrefix;
  const encoded = texts.map((t) => encode(prefix + t));
  const n = encoded.length;
  let len = 1;
  for (const e of encoded) if (e.length > len) len = e.length;
  const ids = new BigInt64Array(n * len).fill(BigInt(padId));
  const mask = new BigInt64Array(n * len);
  for (let i = 0; i < n; i++) {
    const e = encoded[i];
    for (let j = 0; j < e.length; j++) {
      ids[i * len + j] = BigInt(e[j]);
      mask[i * len + j] = 1n;
    }
  }
  const feeds = {};
  for (const name of session.inputNames) {
    if (name === 'input_ids') feeds[name] = new ort.Tensor('int64', ids, [n, len]);
    else if (name === 'attention_mask') feeds[name] = new ort.Tensor('int64', mask, [n, len]);
    else if (name === 'token_type_ids') feeds[name] = new ort.Tensor('int64', new BigInt64Array(n * len), [n, len]);
    else throw new Error('unknown model input ' + name);
  }
  const out = await session.run(feeds);
  const name = session.outputNames.includes('last_hidden_state') ? 'last_hidden_state'
    : session.outputNames.includes('token_embeddings') ? 'token_embeddings' : session.outputNames[0];
  const t = out[name];
  const hidden = t.data;
  let vectors;
  let dim;
  if (t.dims.length === 2) {
    dim = t.dims[1];
    vectors = Float32Array.from(hidden);
  } else {
    dim = t.dims[2];
    vectors = new Float32Array(n * dim);
    for (let i = 0; i < n; i++) {
      const v = vectors.subarray(i * dim, (i + 1) * dim);
      if (profile.pooling === 'cls') {
        v.set(hidden.subarray(i * len * dim, i * len * dim + dim));
      } else {
        const count = encoded[i].length;
        for (let j = 0; j < count; j++) {
          const row = (i * len + j) * dim;
          for (let k = 0; k < dim; k++) v[k] += hidden[row + k];
        }
        for (let k = 0; k < dim; k++) v[k] /= count;
      }
    }
  }
  for (const value of Object.values(out)) value.dispose?.();
  if (profile.normalize) {
    for (let i = 0; i < n; i++) {
      const v = vectors.subarray(i * dim, (i + 1) * dim);
      let s = 0;
      for (let k = 0; k < dim; k++) s += v[k] * v[k];
      if (s > 0) {
        const inv = 1 / Math.sqrt(s);
        for (let k = 0; k < dim; k++) v[k] *= inv;
      }
    }
  }
  return { data: vectors, dim };
}

(async () => {
  try {
    const json = JSON.parse(readFileSync(files.tokenizer, 'utf8'));
    const config = files.tokenizerConfig ? JSON.parse(readFileSync(files.tokenizerConfig, 'utf8')) : {};
    tokenizer = new Tokenizer(json, config);
    padId = json.padding?.pad_id ?? 0;
    session = await ort.InferenceSession.create(files.model, {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    });
    const probe = await embed(['dimension probe'], false);
    parentPort.postMessage({ id: 0, dim: probe.dim });
  } catch (error) {
    parentPort.postMessage({ id: 0, error: String(error && error.message || error) });
    return;
  }
  parentPort.on('message', async (m) => {
    try {
      const { data, dim } = await embed(m.texts, m.query);
      parentPort.postMessage({ id: m.id, data, dim }, [data.buffer]);
    } catch (error) {
      parentPort.postMessage({ id: m.id, error: String(error && error.message || error) });
    }
  });
})();
`;
