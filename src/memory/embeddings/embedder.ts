import type { Db } from '../../db/client.ts';
import type { ModelProfile, SemanticThresholds } from './profile.ts';

/** Why vectors are being made: a stored entry's content, or a recall's query. */
export type EmbedPurpose = 'document' | 'query';

/**
 * Turns texts into unit vectors of one model. `model` names the vectors a workspace
 * stores, so a change of model or dimension makes every stored vector stale (and rebuilt),
 * never mixed.
 */
export interface Embedder {
  readonly kind: 'glove' | 'http' | 'onnx';
  readonly model: string;
  readonly dim: number;
  /** True when embedding needs no network: it can run before a capture's write, inside capture. */
  readonly inline: boolean;
  /**
   * One unit vector per text (all zeros when nothing in it is known to the model), and
   * the workspace's document count its weights came from (0 when the model needs none).
   */
  embed(db: Db, texts: readonly string[], purpose: EmbedPurpose): Promise<{ vectors: Float32Array[]; docs: number }>;
  /** Bytes the model holds in memory. */
  readonly bytes: number;
  /** The cosines its vectors are judged by (duplicate, similar, link, MMR's floor). */
  readonly thresholds: SemanticThresholds;
  /** How texts are prepared and pooled (http, onnx); absent for glove. */
  readonly profile?: ModelProfile | null;
  /** Lets go of what it holds (a thread); optional. */
  close?(): Promise<void>;
}

/** Scales `v` to unit length in place (a zero vector stays zero). */
export function normalize(v: Float32Array): Float32Array {
  let norm = 0;
  for (let i = 0; i < v.length; i++) norm += v[i]! * v[i]!;
  if (norm > 0) {
    const inv = 1 / Math.sqrt(norm);
    for (let i = 0; i < v.length; i++) v[i]! *= inv;
  }
  return v;
}

/** Dot product (the cosine of two unit vectors). */
export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** A vector as the little-endian float32 bytes entry_vectors stores. */
export function vectorBytes(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/** A stored vector back as floats (copied: the bytes may sit at any offset). */
export function vectorFromBytes(bytes: ArrayBuffer | Uint8Array): Float32Array {
  const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  return new Float32Array(u8.slice().buffer);
}
