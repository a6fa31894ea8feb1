import { badInput } from '../../contract/errors.ts';
import type { EdgeSnapshot } from '../../contract/events.ts';
import { NODE_IDS_MAX, type NodeKey, parseNodeId } from '../../contract/node-ids.ts';
import { edgeSnapshot } from '../../db/mappers.ts';
import type { EntryRow, RevisionRow } from '../../db/schema.ts';
import { builder } from '../builder.ts';
import type { Context } from '../context.ts';
import { readDb } from '../guards.ts';

/** Said of every object type without identity, so a client's cache does not look for an id. */
export const VALUE = 'A value, not an object with identity: it has no id.';

type NodeShape = EntryRow | EdgeSnapshot | RevisionRow;

/** Implemented by Entry, Edge and Revision; each defines its own `id`. */
export const NodeRef = builder.interfaceRef<NodeShape>('Node');

NodeRef.implement({
  description:
    'An object with identity: its id is stable for as long as the object exists and finds it again through `node`. ' +
    'Types without an id are values.',
  fields: (t) => ({
    id: t.id({ description: 'Opaque global id; resolves through `node` and `nodes` in the same workspace.' }),
  }),
  // Each is the row its loader returns; a field of its own tells them apart.
  resolveType: (value) => ('contentHash' in value ? 'Entry' : 'weight' in value ? 'Edge' : 'Revision'),
});

/** The object a parsed id names in the caller's workspace, or null: foreign and unknown ids look the same. */
async function loadNode(ctx: Context, key: NodeKey | null): Promise<NodeShape | null> {
  if (!key) return null;
  if (key.kind === 'Entry') return ctx.loaders.entry.load(key.id);
  if (key.kind === 'Edge') {
    const edge = await ctx.loaders.edge.load(key.key);
    return edge && edgeSnapshot(edge);
  }
  const revision = await ctx.loaders.revision.load(key.key.n);
  return revision && revision.entryId === key.key.entryId ? revision : null;
}

builder.queryFields((t) => ({
  node: t.field({
    type: NodeRef,
    nullable: true,
    description: 'The entry, edge or revision with this global id in the caller’s workspace, or null.',
    args: { id: t.arg.id({ required: true, description: 'A global id (`id` of an Entry, Edge or Revision).' }) },
    resolve: (_r, args, ctx) => {
      readDb(ctx);
      return loadNode(ctx, parseNodeId(String(args.id)));
    },
  }),
  nodes: t.field({
    type: [NodeRef],
    nullable: { list: false, items: true },
    description: `The objects with these global ids, in their order, null where none: at most ${NODE_IDS_MAX} ids, batched into one read per type.`,
    args: {
      ids: t.arg.idList({ required: true, description: `Global ids, at most ${NODE_IDS_MAX}.` }),
    },
    resolve: (_r, args, ctx) => {
      readDb(ctx);
      if (args.ids.length > NODE_IDS_MAX) {
        throw badInput(`nodes takes at most ${NODE_IDS_MAX} ids, not ${args.ids.length}`, 'ids');
      }
      return Promise.all(args.ids.map((id) => loadNode(ctx, parseNodeId(String(id)))));
    },
  }),
}));
