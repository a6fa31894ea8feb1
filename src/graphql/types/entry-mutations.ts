import type { EntryRow } from '../../db/schema.ts';
import {
  appendEntry,
  checkAppendInput,
  checkUpdateInput,
  forgetEntry,
  setEntryStatus,
  updateEntry,
} from '../../memory/revise.ts';
import { writeEstimate } from '../../workspaces/storage-quota.ts';
import { builder } from '../builder.ts';
import { checkedFirst, runGrowingWrite, runWrite } from '../guards.ts';
import { EntryRef } from './entry.ts';
import { EntryStatusEnum } from './enums.ts';
import { VALUE } from './node.ts';

/** A payload that carries the entry a mutation changed, as it is after the change. */
function entryPayload(name: string, what: string) {
  return builder.objectRef<{ entry: EntryRow }>(name).implement({
    description: `What ${what} returns. ${VALUE}`,
    fields: (t) => ({
      entry: t.field({ type: EntryRef, description: 'The entry as it is now.', resolve: (p) => p.entry }),
    }),
  });
}

const AppendPayloadRef = entryPayload('AppendPayload', 'append');
const UpdatePayloadRef = entryPayload('UpdatePayload', 'update');
const SetStatusPayloadRef = entryPayload('SetStatusPayload', 'setStatus');

const ForgetPayloadRef = builder.objectRef<{ id: string; forgotten: boolean }>('ForgetPayload').implement({
  description: `What forget returns. ${VALUE}`,
  fields: (t) => ({
    forgottenId: t.exposeID('id', { description: 'The id of the forgotten entry.' }),
    forgotten: t.exposeBoolean('forgotten', { description: 'True once the entry and everything of it is gone.' }),
  }),
});

const AppendInputRef = builder.inputType('AppendInput', {
  description: 'Text to add to the end of an entry.',
  fields: (t) => ({
    id: t.id({ required: true, description: 'Entry id.' }),
    addition: t.string({ required: true, description: 'The text to append.' }),
  }),
});

const UpdateInputRef = builder.inputType('UpdateInput', {
  description: 'New content for an entry.',
  fields: (t) => ({
    id: t.id({ required: true, description: 'Entry id.' }),
    content: t.string({ required: true, description: 'The new content.' }),
    expectedContentHash: t.string({
      required: false,
      description:
        'The `contentHash` of the content this rewrite was made from. When the entry’s content is no longer that (an append or rewrite came in between), nothing is written and the error is CONFLICT, with the current hash in `extensions.contentHash`. Omitted: the content is replaced whatever it is.',
    }),
  }),
});

const SetStatusInputRef = builder.inputType('SetStatusInput', {
  description: 'A new status for an entry.',
  fields: (t) => ({
    id: t.id({ required: true, description: 'Entry id.' }),
    status: t.field({ type: EntryStatusEnum, required: true, description: 'The new status.' }),
  }),
});

const ForgetInputRef = builder.inputType('ForgetInput', {
  description: 'The entry to forget.',
  fields: (t) => ({
    id: t.id({ required: true, description: 'Entry id.' }),
  }),
});

builder.mutationFields((t) => ({
  append: t.field({
    type: AppendPayloadRef,
    nullable: true,
    description: 'Appends text to an entry (blank line between); the old content becomes a revision.',
    args: { input: t.arg({ type: AppendInputRef, required: true, description: 'The entry and the text.' }) },
    extensions: checkedFirst((args: { input: { addition: string } }) => checkAppendInput(args.input.addition)),
    resolve: async (_r, { input }, ctx) => ({
      entry: await runGrowingWrite(
        ctx,
        writeEstimate(input.addition),
        () => (scope) => appendEntry(scope, String(input.id), input.addition),
      ),
    }),
  }),
  update: t.field({
    type: UpdatePayloadRef,
    nullable: true,
    description: 'Replaces an entry’s content; the old content becomes a revision.',
    args: { input: t.arg({ type: UpdateInputRef, required: true, description: 'The entry and its new content.' }) },
    extensions: checkedFirst((args: { input: { content: string } }) => checkUpdateInput(args.input.content)),
    resolve: async (_r, { input }, ctx) => ({
      entry: await runGrowingWrite(
        ctx,
        writeEstimate(input.content),
        () => (scope) => updateEntry(scope, String(input.id), input.content, input.expectedContentHash),
      ),
    }),
  }),
  setStatus: t.field({
    type: SetStatusPayloadRef,
    nullable: true,
    description: 'Sets an entry’s status.',
    args: { input: t.arg({ type: SetStatusInputRef, required: true, description: 'The entry and its new status.' }) },
    resolve: async (_r, { input }, ctx) => ({
      entry: await runWrite(ctx, (scope) => setEntryStatus(scope, String(input.id), input.status)),
    }),
  }),
  forget: t.field({
    type: ForgetPayloadRef,
    nullable: true,
    description: 'Removes an entry with its tags, revisions, edges and index row.',
    args: { input: t.arg({ type: ForgetInputRef, required: true, description: 'The entry.' }) },
    resolve: (_r, { input }, ctx) => runWrite(ctx, (scope) => forgetEntry(scope, String(input.id))),
  }),
}));
