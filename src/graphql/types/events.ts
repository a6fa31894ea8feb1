import type { EntryKind, MemoryEventType } from '../../contract/enums.ts';
import { badInput } from '../../contract/errors.ts';
import type { MemoryEventRecord } from '../../contract/events.ts';
import { checkRange, LIMITS, normalizeTag } from '../../contract/limits.ts';
import { READ_DEFAULTS } from '../../contract/policy.ts';
import type { Db } from '../../db/client.ts';
import { KeyedTurns } from '../../events/keyed-turns.ts';
import { lastSeq, readEventLog } from '../../events/log.ts';
import { workspaceEvents } from '../../events/stream.ts';
import { builder } from '../builder.ts';
import type { Context } from '../context.ts';
import { clientOf, readDb } from '../guards.ts';
import { createLoaders, type Loaders } from '../loaders.ts';
import { EdgeRef } from './edge.ts';
import { EntryRef } from './entry.ts';
import { CaptureOutcomeEnum, EdgeTypeEnum, EntryKindEnum, MemoryEventTypeEnum } from './enums.ts';

const MemoryEventRef = builder.objectRef<MemoryEventRecord>('MemoryEvent').implement({
  description: 'One committed write, from the workspace’s event log.',
  fields: (t) => ({
    seq: t.exposeInt('seq', { description: 'Position in the workspace’s log: 1, 2, 3, … with no gaps.' }),
    type: t.field({ type: MemoryEventTypeEnum, description: 'What happened.', resolve: (e) => e.type }),
    at: t.field({ type: 'DateTime', description: 'When it committed.', resolve: (e) => e.at }),
    entryId: t.exposeID('entryId', {
      nullable: true,
      description: 'The entry concerned (the source entry for edges).',
    }),
    entry: t.field({
      type: EntryRef,
      nullable: true,
      description: 'The entry as it is now; null once forgotten.',
      resolve: (e, _a, ctx) => (e.entryId ? ctx.loaders.entry.load(e.entryId) : null),
    }),
    edge: t.field({
      type: EdgeRef,
      nullable: true,
      description:
        'The edge as it was written (LINKED) or removed (UNLINKED). Its `src` and `dst` stay; once either entry is forgotten, asking for `source` or `target` is NOT_FOUND (and `edge` null).',
      resolve: (e) => e.edge,
    }),
    outcome: t.field({
      type: CaptureOutcomeEnum,
      nullable: true,
      description: 'For CAPTURED: STORED, MERGED or REPLACED.',
      resolve: (e) => e.outcome,
    }),
    data: t.field({
      type: 'JSON',
      nullable: true,
      description: "Details: status change {from,to}, merged tags, replaced id, staleness counts, an import's counts.",
      resolve: (e) => e.data,
    }),
  }),
});

builder.queryFields((t) => ({
  lastEventSeq: t.int({
    description: 'The seq of the newest committed event (0 when there is none): where a live view starts.',
    resolve: (_r, _a, ctx) => lastSeq(readDb(ctx)),
  }),
  eventLog: t.field({
    type: [MemoryEventRef],
    description: 'Committed events after `sinceSeq`, oldest first.',
    args: {
      sinceSeq: t.arg.int({
        defaultValue: READ_DEFAULTS.eventLog.sinceSeq,
        description: 'Return events with a larger seq.',
      }),
      limit: t.arg.int({ defaultValue: READ_DEFAULTS.eventLog.limit, description: 'At most this many, 1 to 1,000.' }),
    },
    resolve: (_r, args, ctx) => {
      const db = readDb(ctx);
      const sinceSeq = args.sinceSeq ?? READ_DEFAULTS.eventLog.sinceSeq;
      if (sinceSeq < 0) throw badInput('sinceSeq must not be negative', 'sinceSeq');
      return readEventLog(
        db,
        ctx.access.workspaceId,
        sinceSeq,
        checkRange(args.limit ?? READ_DEFAULTS.eventLog.limit, LIMITS.eventLogLimit, 'limit'),
      );
    },
  }),
}));

/**
 * Loaders per delivered event. Every subscriber of a workspace receives the same event
 * object, so a thousand subscribers selecting `entry { … }` cost one query, not a
 * thousand; each event still gets fresh loaders, so an entry shows as it is when its
 * event goes out, not as an earlier event cached it.
 */
const eventLoaders = new WeakMap<MemoryEventRecord, Loaders>();

/**
 * Subscriptions of one client (a token; in open mode, a workspace) replaying the event log
 * at once; the others wait for a turn, in order, and their live events are held meanwhile.
 * Each replayed event is resolved for its subscription alone (its entry read anew), so
 * 3,000 subscriptions replaying 19,000 events with entry content took 1.2 GB and held the
 * loop 200 ms.
 */
export const REPLAYS_PER_CLIENT = 4;
const replays = new KeyedTurns(REPLAYS_PER_CLIENT);

function loadersFor(event: MemoryEventRecord, db: Db): Loaders {
  let loaders = eventLoaders.get(event);
  if (!loaders) {
    loaders = createLoaders(db);
    eventLoaders.set(event, loaders);
  }
  return loaders;
}

/**
 * A subscription's events, filtered, each resolved with its event's shared loaders.
 * Written as a plain iterator rather than an async generator: a generator's `return()`
 * waits until its body reaches the next `yield`, so a closed subscription whose filter
 * matched nothing would hold its stream until some matching event arrived. Here
 * `return()` stops the stream at once.
 */
function subscribeEvents(
  ctx: Context,
  sinceSeq: number | null,
  accept: (e: MemoryEventRecord) => boolean | Promise<boolean>,
): AsyncIterableIterator<MemoryEventRecord> {
  const db = readDb(ctx);
  if (sinceSeq !== null && sinceSeq < 0) throw badInput('sinceSeq must not be negative', 'sinceSeq');
  const client = clientOf(ctx);
  const source = workspaceEvents(ctx.bus, db, ctx.access.workspaceId, {
    sinceSeq,
    ...ctx.realtime,
    replayTurn: () => replays.acquire(client),
  });
  const done = { done: true, value: undefined } as const;
  const iterator: AsyncIterableIterator<MemoryEventRecord> = {
    async next() {
      while (true) {
        const next = await source.next();
        if (next.done) return done;
        ctx.loaders = loadersFor(next.value, db);
        if (await accept(next.value)) return next;
      }
    },
    async return() {
      await source.return?.();
      return done;
    },
    async throw(error?: unknown) {
      await source.return?.();
      throw error;
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}

async function entryMatches(ctx: Context, e: MemoryEventRecord, tag: string | null, kind: EntryKind | null) {
  if (tag === null && kind === null) return true;
  if (!e.entryId) return false;
  const entry = await ctx.loaders.entry.load(e.entryId);
  if (!entry) return false;
  if (kind !== null && entry.kind !== kind) return false;
  return tag === null || (await ctx.loaders.tags.load(e.entryId)).includes(tag);
}

builder.subscriptionType({ description: 'Live events of the caller’s workspace.' });

builder.subscriptionFields((t) => ({
  captured: t.field({
    type: MemoryEventRef,
    description: 'CAPTURED events (STORED, MERGED, REPLACED), optionally only for entries with a tag or kind.',
    args: {
      tag: t.arg.string({ description: 'Only entries carrying this tag.' }),
      kind: t.arg({ type: EntryKindEnum, description: 'Only entries of this kind.' }),
    },
    subscribe: (_r, args, ctx) => {
      const tag = args.tag == null ? null : normalizeTag(args.tag);
      return subscribeEvents(ctx, null, (e) => e.type === 'CAPTURED' && entryMatches(ctx, e, tag, args.kind ?? null));
    },
    resolve: (e) => e,
  }),
  linked: t.field({
    type: MemoryEventRef,
    description: 'LINKED events, optionally only for one edge type.',
    args: { type: t.arg({ type: EdgeTypeEnum, description: 'Only edges of this type.' }) },
    subscribe: (_r, args, ctx) =>
      subscribeEvents(ctx, null, (e) => e.type === 'LINKED' && (args.type == null || e.edge?.type === args.type)),
    resolve: (e) => e,
  }),
  events: t.field({
    type: MemoryEventRef,
    description:
      'Every event, optionally of some types. With sinceSeq, replays the log after it first, then goes live: no gap, no duplicate.',
    args: {
      types: t.arg({ type: [MemoryEventTypeEnum], description: 'Only these types.' }),
      sinceSeq: t.arg.int({ description: 'Replay committed events after this seq before going live.' }),
    },
    subscribe: (_r, args, ctx) => {
      const types = args.types ? new Set<MemoryEventType>(args.types) : null;
      return subscribeEvents(ctx, args.sinceSeq ?? null, (e) => types === null || types.has(e.type));
    },
    resolve: (e) => e,
  }),
}));
