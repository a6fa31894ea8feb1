import type { EdgeSnapshot } from '../../contract/events.ts';
import { GRAPH_WALK, READ_DEFAULTS } from '../../contract/policy.ts';
import type { EntryRow } from '../../db/schema.ts';
import { type GraphView, type GraphViewNode, graphView } from '../../retrieval/graph-view.ts';
import { builder } from '../builder.ts';
import { readDb } from '../guards.ts';
import { loadExisting } from '../loaders.ts';
import { columnsFor, selectedFields } from '../selection.ts';
import { EDGE_FIELD_COLUMNS, EdgeRef } from './edge.ts';
import { ENTRY_FIELD_COLUMNS, EntryRef } from './entry.ts';
import { VALUE } from './node.ts';

const GraphNodeRef = builder.objectRef<GraphViewNode>('GraphNode').implement({
  description: `An entry in a graph view, with its distance from the nearest seed. ${VALUE}`,
  fields: (t) => ({
    entry: t.field({
      type: EntryRef,
      description: 'The entry.',
      // Read with the view's edges when the operation asks for entries (see graphView
      // below), with at least the columns its selection of Entry fields reads.
      resolve: (n, _a, ctx) => (n.entry as EntryRow | undefined) ?? loadExisting(ctx.loaders, n.id),
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
    edges: t.field({
      type: [EdgeRef],
      description: 'All edges between returned nodes.',
      // Read with the fields the operation's selection of Edge fields reads (see graphView below).
      resolve: (g) => g.edges as EdgeSnapshot[],
    }),
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
      // Entries and edges are read with only the columns their selected fields read, when
      // every one is known (converting values no field shows was a fifth of a view's time).
      const entryFields = selectedFields(info, ['nodes', 'entry']);
      const entryColumns = entryFields && columnsFor(ENTRY_FIELD_COLUMNS, entryFields);
      const edgeFields = selectedFields(info, ['edges']);
      const edgeColumns = (edgeFields && columnsFor(EDGE_FIELD_COLUMNS, edgeFields)) ?? undefined;
      const view = await graphView(readDb(ctx), args.seedIds.map(String), args.hops, {
        entries: entryFields === null ? false : (entryColumns ?? true),
        edgeColumns,
      });
      // Whole rows serve the loader too, for other fields of the operation that read entries.
      if (entryFields !== null && entryColumns === null)
        for (const node of view.nodes) if (node.entry) ctx.loaders.entry.prime(node.id, node.entry as EntryRow);
      return view;
    },
  }),
}));
