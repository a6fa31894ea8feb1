import { badInput, notFound } from '../../contract/errors.ts';
import type { EdgeSnapshot } from '../../contract/events.ts';
import { checkRange, LIMITS } from '../../contract/limits.ts';
import { GRAPH_WALK, READ_DEFAULTS } from '../../contract/policy.ts';
import { edgeSnapshot } from '../../db/mappers.ts';
import { entriesByIds } from '../../memory/queries.ts';
import { edgesAmong, walkGraph } from '../../retrieval/graph.ts';
import { builder } from '../builder.ts';
import { readDb } from '../guards.ts';
import { loadExisting } from '../loaders.ts';
import { EdgeRef } from './edge.ts';
import { EntryRef } from './entry.ts';

interface GraphNodeShape {
  id: string;
  hop: number;
  score: number;
}

const GraphNodeRef = builder.objectRef<GraphNodeShape>('GraphNode').implement({
  description: 'An entry in a graph view, with its distance from the nearest seed.',
  fields: (t) => ({
    entry: t.field({
      type: EntryRef,
      description: 'The entry.',
      resolve: (n, _a, ctx) => loadExisting(ctx.loaders, n.id),
    }),
    hop: t.exposeInt('hop', { description: 'Edges from the nearest seed (0 for a seed).' }),
    score: t.exposeFloat('score', {
      description: `${GRAPH_WALK.decayPerHop}^hop times the weights of the edges on the way.`,
    }),
  }),
});

const GraphViewRef = builder
  .objectRef<{ nodes: GraphNodeShape[]; edges: EdgeSnapshot[]; truncated: boolean }>('GraphView')
  .implement({
    description: 'The neighbourhood of some entries: nodes, and every edge among them.',
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
    description: 'Walks edges in both directions from the seeds, heaviest first: ≤ 8 per node, ≤ 50 nodes.',
    args: {
      seedIds: t.arg.idList({ required: true, description: 'Up to 50 entry ids to start from.' }),
      hops: t.arg.int({ defaultValue: READ_DEFAULTS.graphView.hops, description: 'How far to walk, 0 to 3.' }),
    },
    resolve: async (_r, args, ctx) => {
      const db = readDb(ctx);
      const hops = checkRange(args.hops ?? READ_DEFAULTS.graphView.hops, LIMITS.hops, 'hops');
      const seeds = [...new Set(args.seedIds.map(String))];
      if (seeds.length > LIMITS.graphSeedsMax) throw badInput(`at most ${LIMITS.graphSeedsMax} seed ids`, 'seedIds');
      const seedRows = await entriesByIds(db, seeds);
      const found = new Set(seedRows.map((e) => e.id));
      const missing = seeds.find((id) => !found.has(id));
      if (missing !== undefined) throw notFound(missing);
      // The seeds are nodes too: their rows answer GraphNode.entry without another query.
      for (const row of seedRows) ctx.loaders.entry.prime(row.id, row);
      const walk = await walkGraph(db, seeds, hops, {
        fanout: GRAPH_WALK.fanout,
        nodeCap: GRAPH_WALK.nodeCap,
        checkTruncation: true,
        // GraphView lists the edges among its nodes, not the ones the walk took.
        viaEdges: false,
      });
      const nodes = walk.nodes.map((n) => ({ id: n.id, hop: n.hop, score: n.score }));
      const edges = await edgesAmong(
        db,
        nodes.map((n) => n.id),
      );
      return { nodes, edges: edges.map(edgeSnapshot), truncated: walk.truncated };
    },
  }),
}));
