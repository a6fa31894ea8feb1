/** The sentence-model profiles the server knows (SPHERE_EMBEDDINGS_PROFILE). */
export const PROFILE_NAMES = ['minilm', 'bge-small', 'e5-small'] as const;

export type ProfileName = (typeof PROFILE_NAMES)[number];

/**
 * What the configuration may set of a model profile (SPHERE_EMBEDDINGS_PROFILE and the
 * variables for its parts); null: the named or guessed profile's.
 */
export interface ProfileSettings {
  /** A known profile's name, or null to guess it from the model's name. */
  profile: ProfileName | null;
  pooling: 'mean' | 'cls' | null;
  maxTokens: number | null;
  queryPrefix: string | null;
  documentPrefix: string | null;
  inputType: boolean | null;
  duplicate: number | null;
  similar: number | null;
  link: number | null;
  mmrFloor: number | null;
}
