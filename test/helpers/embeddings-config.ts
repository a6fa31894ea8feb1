import type { EmbeddingsConfig } from '../../src/config.ts';

/**
 * A server's embeddings configuration for a test: `fields` (the kind and what it needs) over
 * what every test shares, nothing set but the batch, cache and timeout defaults.
 */
export function embeddingsConfig(fields: Pick<EmbeddingsConfig, 'kind'> & Partial<EmbeddingsConfig>): EmbeddingsConfig {
  return {
    url: null,
    model: null,
    apiKey: null,
    dim: null,
    glovePath: null,
    modelsDir: null,
    timeoutMs: 10_000,
    batchSize: 64,
    cacheBytes: 64 * 1024 * 1024,
    ...fields,
  };
}
