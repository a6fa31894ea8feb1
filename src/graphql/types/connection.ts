import { connectionCursor } from '../../memory/connections.ts';
import { loadExisting } from '../loaders.ts';
import { EdgeRef } from './edge.ts';
import { EntryRef, NeighborRef } from './entry.ts';
import { DirectionEnum } from './enums.ts';
import { VALUE } from './node.ts';

NeighborRef.implement({
  description: `An edge seen from one entry: the edge, which way it runs, and the entry at the other end. ${VALUE}`,
  fields: (t) => ({
    edge: t.field({ type: EdgeRef, description: 'The edge.', resolve: (c) => c.edge }),
    direction: t.field({
      type: DirectionEnum,
      description: 'OUT, IN, or BOTH for RELATES_TO.',
      resolve: (c) => c.direction,
    }),
    entry: t.field({
      type: EntryRef,
      description: 'The entry at the other end.',
      resolve: (c, _a, ctx) => loadExisting(ctx.loaders, c.otherId),
    }),
    cursor: t.string({
      description: 'Opaque position of this connection in the heaviest-first order, for `connections(after:)`.',
      resolve: connectionCursor,
    }),
  }),
});
