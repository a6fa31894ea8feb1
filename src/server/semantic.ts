import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Config } from '../config.ts';
import type { Embedder } from '../memory/embeddings/embedder.ts';
import { createEmbedder, GLOVE_WORDS, gloveModelName } from '../memory/embeddings/factory.ts';
import { onnxModelName } from '../memory/embeddings/onnx.ts';
import { type ModelProfile, NO_PROFILE_SETTINGS, resolveProfile } from '../memory/embeddings/profile.ts';
import { Semantic } from '../memory/embeddings/semantic.ts';
import type { ConfiguredModel } from '../memory/embeddings/vector-store.ts';
import type { Logger } from './observability.ts';

/**
 * The model profile of the configured http or onnx model: the one SPHERE_EMBEDDINGS_PROFILE
 * names, or the one its name points to (the endpoint's model, or the model folder's name and
 * its config), with every SPHERE_EMBEDDINGS_* part set on top.
 */
export function configuredProfile(config: Config): ModelProfile {
  const e = config.embeddings;
  const name =
    e.kind === 'onnx' ? `${e.model ?? ''} ${e.modelDir ? modelFolderName(e.modelDir) : ''}` : (e.model ?? '');
  return resolveProfile(e.profile ?? NO_PROFILE_SETTINGS, name);
}

/** The folder's name, and the model its config.json says it was made from (`_name_or_path`). */
function modelFolderName(dir: string): string {
  try {
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { _name_or_path?: unknown };
    return `${basename(dir)} ${String(config._name_or_path ?? '')}`;
  } catch {
    return basename(dir);
  }
}

function onnxOptions(config: Config) {
  const e = config.embeddings;
  return {
    dir: e.modelDir ?? '',
    name: e.model,
    profile: configuredProfile(config),
    threads: e.threads ?? 1,
    chunk: 16,
    maxPendingTexts: Math.max(1024, e.batchSize * 16),
    queryTimeoutMs: e.queryTimeoutMs ?? 2_000,
  };
}

/** The embedder SPHERE_EMBEDDINGS names (not `off`), loaded: what the server and `reindex --vectors` use. */
export function createConfiguredEmbedder(config: Config): Promise<Embedder> {
  const e = config.embeddings;
  if (e.kind === 'off') throw new Error('SPHERE_EMBEDDINGS is off');
  return createEmbedder({
    kind: e.kind,
    glovePath: e.glovePath,
    // Beside the workspace files, in a folder, so it is never taken for a workspace.
    cacheDir: e.modelsDir ?? join(config.dataDir, '_models'),
    gloveWords: GLOVE_WORDS,
    http: {
      url: e.url ?? '',
      model: e.model ?? '',
      apiKey: e.apiKey,
      dim: e.dim,
      timeoutMs: e.timeoutMs,
      queryTimeoutMs: e.queryTimeoutMs ?? Math.min(e.timeoutMs, 2_000),
      batchSize: e.batchSize,
      attempts: 3,
      profile: e.kind === 'http' ? configuredProfile(config) : null,
    },
    onnx: e.kind === 'onnx' ? onnxOptions(config) : null,
  });
}

/**
 * The model whose vectors count, known from the configuration alone (nothing loaded, no
 * endpoint asked; the dimension only when configured), or null with embeddings off.
 */
export function configuredVectorModel(config: Config): ConfiguredModel | null {
  const e = config.embeddings;
  if (e.kind === 'off') return null;
  if (e.kind === 'glove') return { model: gloveModelName(GLOVE_WORDS), dim: null };
  if (e.kind === 'onnx') return { model: onnxModelName(onnxOptions(config)), dim: null };
  return { model: e.model ?? '', dim: e.dim };
}

/**
 * The embedding binding the configuration asks for, loaded before the server listens (the
 * glove table is converted on the first start), or null when SPHERE_EMBEDDINGS is off: then
 * nothing of it is loaded and recall and capture run exactly as without it. An endpoint that
 * cannot be asked its dimension does not keep the server down: the binding starts
 * unavailable and asks again in the background. (Missing glove vectors do stop it: only the
 * operator can fix that.)
 */
export async function startSemantic(config: Config, logger: Logger): Promise<Semantic | null> {
  const e = config.embeddings;
  if (e.kind === 'off') return null;
  const started = performance.now();
  const opts = {
    cacheBytes: e.cacheBytes,
    batchSize: e.batchSize,
    log: (message: string, fields: Record<string, unknown>) => logger.warn(fields, message),
    notice: (message: string, fields: Record<string, unknown>) => logger.info(fields, message),
  };
  let embedder: Embedder;
  try {
    embedder = await createConfiguredEmbedder(config);
  } catch (error) {
    if (e.kind !== 'http') throw error;
    const connect = () => createConfiguredEmbedder(config);
    const { thresholds } = configuredProfile(config);
    return Semantic.unavailable(opts, { kind: 'http', model: e.model ?? '', thresholds }, connect, error);
  }
  logger.info(
    { model: embedder.model, dim: embedder.dim, ms: Math.round(performance.now() - started), bytes: embedder.bytes },
    'embeddings ready',
  );
  return new Semantic({ ...opts, embedder });
}
