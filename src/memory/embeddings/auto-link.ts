import { SEMANTIC_CAPTURE } from '../../contract/policy.ts';
import type { Writer } from '../../db/writer.ts';
import { linkWrite } from '../link.ts';
import type { VectorMatch } from './vector-index.ts';

/** A cosine as an edge weight: within (0, 1] whatever float rounding gave. */
export const linkWeight = (cosine: number) => Math.min(1, Math.max(Number.EPSILON, cosine));

/**
 * The same links made after the fact (a network model's vectors come after commit): each
 * link its own write with its own LINKED event, all asked at once so the writer commits a
 * batch's links in one transaction. An end forgotten meanwhile is skipped.
 */
export async function autoLink(
  writer: Pick<Writer, 'run'>,
  found: readonly { entryId: string; near: readonly VectorMatch[] }[],
): Promise<void> {
  const writes = found.flatMap(({ entryId, near }) =>
    near.slice(0, SEMANTIC_CAPTURE.linksMax).map((m) =>
      writer
        .run(
          linkWrite({
            src: entryId,
            dst: m.id,
            type: 'RELATES_TO',
            weight: linkWeight(m.cosine),
            provenance: 'INFERRED',
          }),
        )
        .catch((error: unknown) => {
          if ((error as { code?: string }).code !== 'NOT_FOUND') throw error;
        }),
    ),
  );
  await Promise.all(writes);
}
