import type { Embedder } from './embedder.ts';
import { DEFAULT_THRESHOLDS, type SemanticThresholds } from './profile.ts';

/** Where the embedder stands: ready, or not reachable yet and asked again with backoff. */
export type EmbedderState = 'ready' | 'unavailable';

/** What `/health` and `stats` say of the embedder. */
export interface EmbedderStatus {
  state: EmbedderState;
  model: string;
  /** The vector size; null while the endpoint has not told it. */
  dim: number | null;
  /** Why it is unavailable (the last attempt's error); null when ready. */
  reason: string | null;
  /** Failed attempts to reach it in a row; 0 when ready. */
  attempts: number;
  /** When it is asked again; null when ready. */
  retryAt: Date | null;
  /** When it entered this state. */
  since: Date;
}

/**
 * Stands in for an embedder that could not be reached at start-up (an endpoint down, with
 * no SPHERE_EMBEDDINGS_DIM to go on): every embedding fails with the reason, so a recall's
 * vector arm says why it was skipped and falls back to keywords, while captures are stored
 * as usual and get their vectors once the real embedder answers.
 */
export class UnavailableEmbedder implements Embedder {
  readonly kind: Embedder['kind'];
  readonly model: string;
  readonly dim = 0;
  readonly inline = false;
  readonly bytes = 0;
  readonly thresholds: SemanticThresholds;
  readonly #why: () => string;

  constructor(kind: Embedder['kind'], model: string, why: () => string, thresholds = DEFAULT_THRESHOLDS) {
    this.kind = kind;
    this.thresholds = thresholds;
    this.model = model;
    this.#why = why;
  }

  async embed(): Promise<never> {
    throw new Error(`embeddings unavailable: ${this.#why()}`);
  }
}

/** Delays between attempts to reach an unavailable embedder: doubling from 1 s up to a minute. */
export const RECONNECT_MS = { first: 1_000, max: 60_000 };
