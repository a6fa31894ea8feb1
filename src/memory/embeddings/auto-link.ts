import { SEMANTIC_CAPTURE } from '../../contract/policy.ts';
import type { Writer } from '../../db/writer.ts';
import { linkWrite } from '../link.ts';
import type { VectorMatch } from './vector-index.ts';

/** A cosine as an edge weight: within (0, 1] whatever float rounding gave. */
export const linkWeight = (cosine: number) => Math.min(1, Math.max(Number.EPSILON, cosine));

/**
 * The same links made after the fact (a network model's vectors come after commit): each
 * link its own write with its own LINKED event. An end forgotten meanwhile is skipped.
 */
export async function autoLink(
  writer: Pick<Writer, 'run'>,
  entryId: string,
  near: readonly VectorMatch[],
): Promise<void> {
  for (const m of near.slice(0, SEMANTIC_CAPTURE.linksMax)) {
    try {
      await writer.run(
        linkWrite({
          src: entryId,
          dst: m.id,
          type: 'RELATES_TO',
          weight: linkWeight(m.cosine),
          provenance: 'INFERRED',
        }),
      );
    } catch (error) {
      if ((error as { code?: string }).code !== 'NOT_FOUND') throw error;
    }
  }
}
