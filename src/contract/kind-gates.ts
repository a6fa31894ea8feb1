/**
 * Which kinds each edge type accepts at its ends (CONTRACT §5): the one source for the API's
 * check (memory/link.ts, ops/import.ts) and the dashboard's edge-type menu. Plain data with
 * no imports but the enums, so the browser bundle shares it.
 */
import { EDGE_TYPES, type EdgeType, type EntryKind } from './enums.ts';

/** Absent means any kind at that end. */
export const KIND_GATES: Partial<Record<EdgeType, { src?: EntryKind; dst?: EntryKind }>> = {
  DECIDED: { src: 'EPISODIC' },
  FOLLOWS: { src: 'EPISODIC', dst: 'EPISODIC' },
  ABOUT_PERSON: { dst: 'PERSON' },
  PART_OF_PROJECT: { dst: 'PROJECT' },
  DOCUMENT_OF: { src: 'DOCUMENT' },
};

/** Why an edge of `type` may not join entries of these kinds, or null when it may. */
export function kindGateProblem(type: EdgeType, srcKind: EntryKind, dstKind: EntryKind): string | null {
  const gate = KIND_GATES[type];
  if (gate?.src && srcKind !== gate.src) return `${type} needs a ${gate.src} source, got ${srcKind}`;
  if (gate?.dst && dstKind !== gate.dst) return `${type} needs a ${gate.dst} target, got ${dstKind}`;
  return null;
}

/** The edge types that may go from an entry of `srcKind` to one of `dstKind`. */
export function allowedEdgeTypes(srcKind: EntryKind, dstKind: EntryKind): EdgeType[] {
  return EDGE_TYPES.filter((type) => kindGateProblem(type, srcKind, dstKind) === null);
}
