import type { EdgeSnapshot } from '../../contract/events.ts';
import { edgeNodeId } from '../../contract/node-ids.ts';
import { edgeSnapshot } from '../../db/mappers.ts';
import type { EntryRow } from '../../db/schema.ts';
import { checkLinkInput, type LinkInput, linkWrite, unlinkWrite } from '../../memory/link.ts';
import { writeEstimate } from '../../workspaces/storage-quota.ts';
import { builder } from '../builder.ts';
import type { Context } from '../context.ts';
import { checkedFirst, runGrowingWrite, runWrite } from '../guards.ts';
import { loadExisting } from '../loaders.ts';
import { EntryRef } from './entry.ts';
import { EdgeTypeEnum, ProvenanceEnum } from './enums.ts';
import { NodeRef, VALUE } from './node.ts';

export const EdgeRef = builder.objectRef<EdgeSnapshot>('Edge');

/** The fields of its row each field of Edge reads, as ENTRY_FIELD_COLUMNS for Entry. */
export const EDGE_FIELD_COLUMNS: Readonly<Record<string, readonly (keyof EdgeSnapshot)[]>> = {
  id: ['src', 'dst', 'type'],
  src: ['src'],
  dst: ['dst'],
  type: ['type'],
  weight: ['weight'],
  provenance: ['provenance'],
  metadata: ['metadata'],
  createdAt: ['createdAt'],
  updatedAt: ['updatedAt'],
  source: ['src'],
  target: ['dst'],
};

EdgeRef.implement({
  description: 'A typed, weighted link between two entries of one workspace.',
  interfaces: [NodeRef],
  fields: (t) => ({
    id: t.id({
      description:
        'Opaque global id for `node`, from src, dst and type: it stays the same through re-linking and after unlink and link again.',
      resolve: (e) => edgeNodeId(e),
    }),
    src: t.exposeID('src', { description: 'Source entry id (for RELATES_TO, the smaller id).' }),
    dst: t.exposeID('dst', { description: 'Target entry id (for RELATES_TO, the larger id).' }),
    type: t.field({ type: EdgeTypeEnum, description: 'The relation.', resolve: (e) => e.type }),
    weight: t.exposeFloat('weight', { description: 'Strength in (0, 1]; re-linking keeps the maximum.' }),
    provenance: t.field({ type: ProvenanceEnum, description: 'Who made it.', resolve: (e) => e.provenance }),
    metadata: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Free-form metadata; re-linking merges keys.',
      resolve: (e) => e.metadata,
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was first made.', resolve: (e) => e.createdAt }),
    updatedAt: t.field({ type: 'DateTime', description: 'When it was last changed.', resolve: (e) => e.updatedAt }),
    source: t.field({
      type: EntryRef,
      description: 'The source entry.',
      resolve: (e, _a, ctx) => loadExisting(ctx.loaders, e.src),
    }),
    target: t.field({
      type: EntryRef,
      description: 'The target entry.',
      resolve: (e, _a, ctx) => loadExisting(ctx.loaders, e.dst),
    }),
  }),
});

const LinkInputRef = builder.inputType('LinkInput', {
  description: 'An edge to make or strengthen.',
  fields: (t) => ({
    src: t.id({ required: true, description: 'Source entry id.' }),
    dst: t.id({ required: true, description: 'Target entry id; must differ from src.' }),
    type: t.field({ type: EdgeTypeEnum, required: true, description: 'The relation; some types gate entry kinds.' }),
    weight: t.float({ defaultValue: 1.0, description: 'Strength in (0, 1].' }),
    provenance: t.field({ type: ProvenanceEnum, defaultValue: 'EXPLICIT', description: 'Who makes it.' }),
    metadata: t.field({ type: 'JSON', description: 'Free-form metadata; merged key by key into an existing edge.' }),
  }),
});

type LinkArg = Omit<LinkInput, 'src' | 'dst'> & { src: string | number; dst: string | number };

/** The link as the domain takes it: ids are strings there. */
function linkOf(input: LinkArg): LinkInput {
  return { ...input, src: String(input.src), dst: String(input.dst) };
}

/** Drops what this request has cached about an edge's endpoints (their edges changed), so later fields read them afresh. */
function forgetCached(ctx: Context, ids: string[]): void {
  // Pages of connections are cached by their arguments too: drop them all.
  ctx.loaders.connections.clearAll();
  for (const id of ids) {
    ctx.loaders.entry.clear(id);
    ctx.loaders.superseded.clear(id);
  }
}

const LinkPayloadRef = builder
  .objectRef<{ edge: EdgeSnapshot; source: EntryRow; target: EntryRow }>('LinkPayload')
  .implement({
    description: `What link returns: the edge and both of its entries as they are now. ${VALUE}`,
    fields: (t) => ({
      edge: t.field({ type: EdgeRef, description: 'The edge made or strengthened.', resolve: (p) => p.edge }),
      source: t.field({ type: EntryRef, description: 'The edge’s source entry.', resolve: (p) => p.source }),
      target: t.field({ type: EntryRef, description: 'The edge’s target entry.', resolve: (p) => p.target }),
    }),
  });

const UnlinkPayloadRef = builder
  .objectRef<{ removedEdgeId: string | null; source: EntryRow; target: EntryRow }>('UnlinkPayload')
  .implement({
    description: `What unlink returns: the removed edge's id and both entries as they are now. ${VALUE}`,
    fields: (t) => ({
      removedEdgeId: t.exposeID('removedEdgeId', {
        nullable: true,
        description: 'The global id of the removed edge (its Edge.id), or null when there was no such edge.',
      }),
      source: t.field({ type: EntryRef, description: 'The entry given as src.', resolve: (p) => p.source }),
      target: t.field({ type: EntryRef, description: 'The entry given as dst.', resolve: (p) => p.target }),
    }),
  });

const UnlinkInputRef = builder.inputType('UnlinkInput', {
  description: 'An edge to remove.',
  fields: (t) => ({
    src: t.id({ required: true, description: 'Source entry id.' }),
    dst: t.id({ required: true, description: 'Target entry id.' }),
    type: t.field({ type: EdgeTypeEnum, required: true, description: 'The relation.' }),
  }),
});

builder.mutationFields((t) => ({
  link: t.field({
    type: LinkPayloadRef,
    nullable: true,
    description:
      'Links two entries, or strengthens the existing edge (max weight, stronger provenance, merged metadata).',
    args: { input: t.arg({ type: LinkInputRef, required: true, description: 'The edge.' }) },
    extensions: checkedFirst((args: { input: LinkArg }) => checkLinkInput(linkOf(args.input))),
    resolve: async (_r, { input }, ctx) => {
      const link = linkOf(input);
      const grows = writeEstimate(link.metadata == null ? null : JSON.stringify(link.metadata));
      const { edge, source, target } = await runGrowingWrite(ctx, grows, () => linkWrite(link));
      forgetCached(ctx, [edge.src, edge.dst]);
      return { edge: edgeSnapshot(edge), source, target };
    },
  }),
  unlink: t.field({
    type: UnlinkPayloadRef,
    nullable: true,
    description: 'Removes an edge (either order for RELATES_TO); removedEdgeId is null when there was none.',
    args: { input: t.arg({ type: UnlinkInputRef, required: true, description: 'The edge.' }) },
    resolve: async (_r, { input }, ctx) => {
      const [src, dst] = [String(input.src), String(input.dst)];
      const { removed, source, target } = await runWrite(ctx, unlinkWrite({ src, dst, type: input.type }));
      forgetCached(ctx, [src, dst]);
      return { removedEdgeId: removed ? edgeNodeId(removed) : null, source, target };
    },
  }),
}));
