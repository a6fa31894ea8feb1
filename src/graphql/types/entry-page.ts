import { LIST_PAGES } from '../../contract/limits.ts';
import {
  ENTRY_ORDER_FIELDS,
  type EntryOrderField,
  type EntryPage,
  listEntries,
  ORDER_DIRECTIONS,
  type OrderDirection,
} from '../../retrieval/entry-page.ts';
import { builder } from '../builder.ts';
import { readDb } from '../guards.ts';
import { EntryRef, readsText } from './entry.ts';
import { prefilterFields } from './recall.ts';

const ORDER_FIELD_DESCRIPTIONS: Record<EntryOrderField, string> = {
  CREATED_AT: 'When the entry was stored; never changes, so a walk sees each entry once.',
  UPDATED_AT: 'When the entry last changed; an entry updated during a walk moves and may be seen twice or missed.',
  OBSERVED_AT:
    'When it happened in the world; entries with no observedAt sort by createdAt, as the since/until filter reads them.',
};
const DIRECTION_DESCRIPTIONS: Record<OrderDirection, string> = {
  ASC: 'Oldest first.',
  DESC: 'Newest first.',
};
const described = <V extends string>(names: readonly V[], d: Record<V, string>) =>
  Object.fromEntries(names.map((n) => [n, { description: d[n] }])) as Record<V, { description: string }>;

const EntryOrderFieldEnum = builder.enumType('EntryOrderField', {
  description: 'What the entries listing sorts by; ties go by insertion order in the same direction.',
  values: described(ENTRY_ORDER_FIELDS, ORDER_FIELD_DESCRIPTIONS),
});
const OrderDirectionEnum = builder.enumType('OrderDirection', {
  description: 'Which way a listing runs.',
  values: described(ORDER_DIRECTIONS, DIRECTION_DESCRIPTIONS),
});

const EntryOrderRef = builder.inputType('EntryOrder', {
  description: 'The order of the entries listing; its cursors are valid in this order only.',
  fields: (t) => ({
    field: t.field({
      type: EntryOrderFieldEnum,
      required: true,
      defaultValue: 'CREATED_AT',
      description: 'The time to sort by.',
    }),
    direction: t.field({
      type: OrderDirectionEnum,
      required: true,
      defaultValue: 'DESC',
      description: 'Newest first (DESC) or oldest first (ASC).',
    }),
  }),
});

const EntryFilterRef = builder.inputType('EntryFilter', {
  description: 'Which entries the listing holds: an entry must pass all of these, as in recall’s filter.',
  fields: (t) => prefilterFields(t, 'Only these statuses (default: every status, DEPRECATED included).'),
});

const PageInfoRef = builder.objectRef<EntryPage['pageInfo']>('PageInfo').implement({
  description: 'Where a page sits in its list (Relay Cursor Connections).',
  fields: (t) => ({
    hasNextPage: t.exposeBoolean('hasNextPage', {
      description:
        'More items follow this page in the order (paging back with `last` and `before`: items at or past `before` exist).',
    }),
    hasPreviousPage: t.exposeBoolean('hasPreviousPage', {
      description:
        'More items precede this page in the order (paging on with `first` and `after`: items at or before `after` exist).',
    }),
    startCursor: t.exposeString('startCursor', { nullable: true, description: 'The first edge’s cursor.' }),
    endCursor: t.exposeString('endCursor', { nullable: true, description: 'The last edge’s cursor.' }),
  }),
});

const EntryEdgeRef = builder.objectRef<EntryPage['edges'][number]>('EntryEdge').implement({
  description: 'An entry in a page of the listing, with its position.',
  fields: (t) => ({
    cursor: t.exposeString('cursor', { description: 'Opaque position of this entry, for `after` or `before`.' }),
    node: t.field({ type: EntryRef, description: 'The entry.', resolve: (e) => e.node }),
  }),
});

const EntryConnectionRef = builder.objectRef<EntryPage>('EntryConnection').implement({
  description: 'A page of entries, with where it sits and how many match.',
  fields: (t) => ({
    edges: t.field({
      type: [EntryEdgeRef],
      description: 'The entries of the page, in order.',
      resolve: (p) => p.edges,
    }),
    pageInfo: t.field({ type: PageInfoRef, description: 'Where the page sits.', resolve: (p) => p.pageInfo }),
    totalCount: t.int({
      description: 'How many entries match the filter, whatever the cursors.',
      resolve: (p) => p.totalCount(),
    }),
  }),
});

const range = LIST_PAGES.entries.range.join(' to ');

builder.queryFields((t) => ({
  entries: t.field({
    type: EntryConnectionRef,
    description:
      'Every entry matching the filter, one page at a time (Relay Cursor Connections): newest first by default. ' +
      'Cursors are keyset positions: paging by CREATED_AT while others capture sees each entry that existed at the start exactly once.',
    args: {
      first: t.arg.int({
        description: `The first this many after \`after\`, ${range}; ${LIST_PAGES.entries.first} when neither first nor last is given.`,
      }),
      after: t.arg.string({ description: 'Start after this cursor (from this order).' }),
      last: t.arg.int({ description: `The last this many before \`before\`, ${range}; not with first.` }),
      before: t.arg.string({ description: 'End before this cursor (from this order).' }),
      filter: t.arg({ type: EntryFilterRef, description: 'Only entries passing all of these.' }),
      orderBy: t.arg({ type: EntryOrderRef, description: 'The order; createdAt, newest first, by default.' }),
    },
    resolve: async (_r, args, ctx, info) => {
      const text = readsText(info, ['edges', 'node']);
      const page = await listEntries(readDb(ctx), args, { text });
      // Whole rows serve the loader too, for other fields of the operation that read entries.
      if (text) for (const e of page.edges) ctx.loaders.entry.prime(e.node.id, e.node);
      return page;
    },
  }),
}));
