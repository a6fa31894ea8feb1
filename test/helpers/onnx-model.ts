import type { EmbeddingsConfig } from '../../src/config.ts';
import { NO_PROFILE_SETTINGS } from '../../src/memory/embeddings/profile.ts';
import { embeddingsConfig } from './embeddings-config.ts';

/** A server configuration running the sentence model in `dir` in-process (onnx), one inference thread. */
export function onnxConfig(dir: string, extra: Partial<EmbeddingsConfig> = {}): { embeddings: EmbeddingsConfig } {
  return {
    embeddings: embeddingsConfig({
      kind: 'onnx',
      modelDir: dir,
      threads: 1,
      queryTimeoutMs: 60_000,
      profile: NO_PROFILE_SETTINGS,
      ...extra,
    }),
  };
}

/** The event the model tests look for, and unrelated turns around it. */
export const EVENT = 'Jon lost his job at the bank and opened a dance studio.';
export const FILLER = [
  'We hiked the Appalachian trail for three days in October.',
  'The quarterly budget review moved to the finance office.',
  'Melanie painted a sunset over the lake with her kids.',
  'The production deploy failed on Friday because the database migration timed out.',
  'The kids played football in the park after school.',
  'I started learning the violin in March and practice every evening.',
];
