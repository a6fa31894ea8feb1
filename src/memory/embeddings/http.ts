import { type Embedder, type EmbedPurpose, normalize } from './embedder.ts';
import { DEFAULT_THRESHOLDS, type ModelProfile } from './profile.ts';

export interface HttpEmbedderOptions {
  /** The endpoint, e.g. `http://localhost:8080/v1/embeddings` (OpenAI's embeddings protocol). */
  url: string;
  model: string;
  apiKey: string | null;
  /** Vector size the model returns; every answer is checked against it. */
  dim: number;
  /** Per request, for documents (background); queries get `queryTimeoutMs` and no retry. */
  timeoutMs: number;
  queryTimeoutMs: number;
  /** Texts per request. */
  batchSize: number;
  /** Attempts per request for documents (the first and the retries). */
  attempts: number;
  /** Prefixes, `input_type` and thresholds; null: none, and the default thresholds. */
  profile?: ModelProfile | null;
}

interface EmbeddingsResponse {
  data?: { index?: number; embedding?: number[] }[];
}

/**
 * Any OpenAI-compatible `/v1/embeddings` endpoint: texts go in batches, each request has a
 * timeout, and document batches are retried with backoff (a recall's query is not: it
 * falls back to keyword recall instead of waiting).
 */
export class HttpEmbedder implements Embedder {
  readonly kind = 'http' as const;
  readonly inline = false;
  readonly bytes = 0;
  readonly model: string;
  readonly dim: number;
  readonly #opts: HttpEmbedderOptions;

  constructor(opts: HttpEmbedderOptions) {
    this.#opts = opts;
    this.model = opts.model;
    this.dim = opts.dim;
  }

  get profile() {
    return this.#opts.profile ?? null;
  }

  get thresholds() {
    return this.#opts.profile?.thresholds ?? DEFAULT_THRESHOLDS;
  }

  async embed(_db: unknown, texts: readonly string[], purpose: EmbedPurpose) {
    const { batchSize } = this.#opts;
    const vectors: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += batchSize) {
      vectors.push(...(await this.#request(texts.slice(i, i + batchSize), purpose)));
    }
    return { vectors, docs: 0 };
  }

  async #request(input: readonly string[], purpose: EmbedPurpose): Promise<Float32Array[]> {
    const query = purpose === 'query';
    const attempts = query ? 1 : this.#opts.attempts;
    let last: unknown = null;
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, 250 * 2 ** (attempt - 1)));
      try {
        return await this.#post(input, purpose, query ? this.#opts.queryTimeoutMs : this.#opts.timeoutMs);
      } catch (error) {
        last = error;
        if ((error as { permanent?: boolean }).permanent) break;
      }
    }
    throw last instanceof Error ? last : new Error(String(last));
  }

  async #post(texts: readonly string[], purpose: EmbedPurpose, timeoutMs: number): Promise<Float32Array[]> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.#opts.apiKey) headers.authorization = `Bearer ${this.#opts.apiKey}`;
    const profile = this.#opts.profile;
    const prefix = (purpose === 'query' ? profile?.queryPrefix : profile?.documentPrefix) ?? '';
    const input = prefix ? texts.map((t) => prefix + t) : texts;
    const payload: Record<string, unknown> = { model: this.#opts.model, input };
    // Cohere's, Voyage's and TEI's name for it; endpoints that do not know it ignore it or refuse (then leave it off).
    if (profile?.inputType) payload.input_type = purpose;
    let res: Response;
    try {
      res = await fetch(this.#opts.url, {
        method: 'POST',
        headers,
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const timedOut = (error as Error)?.name === 'TimeoutError';
      throw new Error(
        timedOut
          ? `embeddings endpoint timed out after ${timeoutMs} ms`
          : `embeddings endpoint unreachable (${causeOf(error)})`,
      );
    }
    if (!res.ok) {
      await res.body?.cancel();
      // A client error will not get better by retrying; a server error or a rate limit may.
      const permanent = res.status >= 400 && res.status < 500 && res.status !== 429 && res.status !== 408;
      throw Object.assign(new Error(`embeddings endpoint answered HTTP ${res.status}`), { permanent });
    }
    const body = (await res.json()) as EmbeddingsResponse;
    const data = [...(body.data ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    if (data.length !== input.length) {
      throw new Error(`embeddings endpoint returned ${data.length} vectors for ${input.length} texts`);
    }
    return data.map((d) => {
      const v = Float32Array.from(d.embedding ?? []);
      if (v.length !== this.dim) {
        throw Object.assign(new Error(`embeddings endpoint returned ${v.length} dimensions, expected ${this.dim}`), {
          permanent: true,
        });
      }
      return normalize(v);
    });
  }
}

/** fetch's own message is only "fetch failed": the cause says what an operator can act on. */
function causeOf(error: unknown): string {
  const message = (error as Error)?.message;
  const cause = (error as { cause?: { message?: string } })?.cause?.message;
  return cause ? `${message}: ${cause}` : String(message);
}

/** Asks the endpoint once for a vector's size (when SPHERE_EMBEDDINGS_DIM is not set). */
export async function probeDimension(opts: Omit<HttpEmbedderOptions, 'dim'>): Promise<number> {
  const probe = new HttpEmbedder({ ...opts, dim: -1 });
  try {
    await probe.embed(null, ['dimension probe'], 'document');
  } catch (error) {
    const m = /returned (\d+) dimensions/.exec(String((error as Error)?.message));
    if (m) return Number(m[1]);
    throw error;
  }
  throw new Error('embeddings endpoint returned no vector');
}
