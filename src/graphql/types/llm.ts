import type { LlmStatus } from '../../memory/llm/binding.ts';
import type { Classification, Conflict } from '../../memory/llm/records.ts';
import { builder } from '../builder.ts';
import { readDb } from '../guards.ts';
import { EntryRef } from './entry.ts';
import { ClassificationSourceEnum, ConflictRelationEnum } from './enums.ts';
import { VALUE } from './node.ts';
import { RecallHitRef } from './recall.ts';
import { StatsRef } from './stats.ts';

/*
 * What the optional LLM binding (SPHERE_LLM) adds to reads: where an entry's classification
 * came from, what the model found between entries, and the binding's state. Every field
 * answers with the binding off too: from what is stored.
 */

const ClassificationRef = builder.objectRef<Classification>('Classification').implement({
  description: `Where each field of an entry’s classification came from. ${VALUE}`,
  fields: (t) => ({
    kind: t.field({ type: ClassificationSourceEnum, description: 'Of `kind`.', resolve: (c) => c.kind }),
    volatility: t.field({
      type: ClassificationSourceEnum,
      description: 'Of `volatility`.',
      resolve: (c) => c.volatility,
    }),
    importance: t.field({
      type: ClassificationSourceEnum,
      description: 'Of `importance`.',
      resolve: (c) => c.importance,
    }),
    model: t.exposeString('model', { nullable: true, description: 'The model that proposed MODEL fields.' }),
    at: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the model answered.',
      resolve: (c) => (c.at === null ? null : new Date(c.at)),
    }),
  }),
});

const ConflictRef = builder.objectRef<Conflict>('Conflict').implement({
  description: `What the LLM binding found between this entry and another: information, never a rewrite. ${VALUE}`,
  fields: (t) => ({
    entry: t.field({
      type: EntryRef,
      nullable: true,
      description: 'The other entry (null only while it is being forgotten).',
      resolve: (c, _a, ctx) => ctx.loaders.entry.load(c.otherId),
    }),
    newer: t.exposeBoolean('newer', { description: 'True when this entry is the newer of the two.' }),
    relation: t.field({ type: ConflictRelationEnum, description: 'The finding.', resolve: (c) => c.relation }),
    reason: t.exposeString('reason', { description: 'The model’s one-line reason.' }),
    confidence: t.exposeFloat('confidence', { nullable: true, description: 'The model’s confidence, 0 to 1.' }),
    model: t.exposeString('model', { description: 'The model that found it.' }),
    at: t.field({ type: 'DateTime', description: 'When it was found.', resolve: (c) => new Date(c.at) }),
  }),
});

const LlmStatusRef = builder.objectRef<LlmStatus & { pending: Promise<number> }>('LlmStatus').implement({
  description: 'The LLM binding of this server (SPHERE_LLM) and this workspace’s queue.',
  fields: (t) => ({
    state: t.exposeString('state', { description: '`ready`, or `degraded` while its endpoint fails.' }),
    model: t.exposeString('model', { description: 'The chat model asked.' }),
    reason: t.exposeString('reason', { nullable: true, description: 'Why it is degraded.' }),
    retryAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the endpoint is asked again.',
      resolve: (s) => s.retryAt,
    }),
    pending: t.int({ description: 'This workspace’s entries waiting for the model.', resolve: (s) => s.pending }),
  }),
});

builder.objectFields(EntryRef, (t) => ({
  classification: t.field({
    type: ClassificationRef,
    description:
      'Where its kind, volatility and importance came from: the caller, a default, the model or a staleness pass.',
    resolve: (e, _a, ctx) => ctx.loaders.classification.load(e),
  }),
  conflicts: t.field({
    type: [ConflictRef],
    description:
      'What the LLM binding found between this entry and others (it updates or contradicts them, or they it), newest first, at most 20.',
    resolve: (e, _a, ctx) => ctx.loaders.conflicts.load(e.id),
  }),
}));

builder.objectFields(RecallHitRef, (t) => ({
  contradictedBy: t.idList({
    description:
      'Newer entries that the LLM binding found to update or contradict this one (at most 10): read them before trusting it.',
    resolve: (h, _a, ctx) => ctx.loaders.contradictedBy.load(h.entry.id),
  }),
}));

builder.objectFields(StatsRef, (t) => ({
  llm: t.field({
    type: LlmStatusRef,
    nullable: true,
    description: 'The LLM binding’s state and this workspace’s queue; null when it is off (SPHERE_LLM).',
    resolve: (_s, _a, ctx) => {
      if (!ctx.llm) return null;
      readDb(ctx);
      return { ...ctx.llm.binding.status(), pending: ctx.llm.workspace.pending() };
    },
  }),
}));
