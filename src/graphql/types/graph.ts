import { GRAPH_WALK, READ_DEFAULTS } from '../../contract/policy.ts';
import { type GraphView, type GraphViewNode, graphView } from '../../retrieval/graph-view.ts';
import { builder } from '../builder.ts';
import { readDb } from '../guards.ts';
import { loadExisting } from '../loaders.ts';
import { selects } from '../selection.ts';
import { EdgeRef } from './edge.ts';
import { EntryRef } from './entry.ts';
import { VALUE } from './node.ts';

const GraphNodeRef = builder.objectRef<GraphViewNode>('GraphNode').implement({
  description: `An entry in a graph view, with its distance from the nearest seed. ${VALUE}`,
  fields: (t) => ({
    entry: t.field({
      type: EntryRef,
      description: 'The entry.',
      // Read with the view's edges when the operation asks for entries (see graphView below).
      resolve: (n, _a, ctx) => n.entry ?? loadExisting(ctx.loaders, n.id),
    }),
    hop: t.exposeInt('hop', { description: 'Edges from the nearest seed (0 for a seed).' }),
    score: t.exposeFloat('score', {
      description: `${GRAPH_WALK.decayPerHop}^hop times the weights of the edges on the way.`,
    }),
  }),
});

const GraphViewRef = builder.objectRef<GraphView>('GraphView').implement({
  description: `The neighbourhood of some entries: nodes, and every edge among them. ${VALUE}`,
  fields: (t) => ({
    nodes: t.field({
      type: [GraphNodeRef],
      description: 'Seeds first, then by hop and score.',
      resolve: (g) => g.nodes,
    }),
    edges: t.field({ type: [EdgeRef], description: 'All edges between returned nodes.', resolve: (g) => g.edges }),
    truncated: t.exposeBoolean('truncated', {
      description: `True when the fanout (${GRAPH_WALK.fanout} per node) or the node cap (${GRAPH_WALK.nodeCap}) left reachable nodes out.`,
    }),
  }),
});

builder.queryFields((t) => ({
  graphView: t.field({
    type: GraphViewRef,
    nullable: true,
    description:
      'Walks edges in both directions from the seeds, heaviest first: ≤ 8 per node, ≤ 50 nodes; null, with a NOT_FOUND error at this field, when a seed is not an entry of the workspace.',
    args: {
      seedIds: t.arg.idList({ required: true, description: 'Up to 50 entry ids to start from.' }),
      hops: t.arg.int({ defaultValue: READ_DEFAULTS.graphView.hops, description: 'How far to walk, 0 to 3.' }),
    },
    resolve: async (_r, args, ctx, info) => {
      // The nodes' entries come in the statement batch that reads the edges among them, and
      // each node's `entry` is then resolved at once: no loader round and no promise per node.
      const withEntries = selects(info, ['nodes', 'entry']);
      const view = await graphView(readDb(ctx), args.seedIds.map(String), args.hops, { withEntries });
      for (const node of view.nodes) if (node.entry) ctx.loaders.entry.prime(node.id, node.entry);
      return view;
    },
  }),
}));
