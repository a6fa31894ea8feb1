/**
 * The documents the dashboard sends: the client package's own (client/src/operations), taken by
 * operation name from the manifest the package ships (`mini-sphere-client/persisted-documents.json`)
 * and typed with the package's generated types. So the project has one set of documents, each with
 * one text and one sha-256, whether an app, an agent or the dashboard sends it, and a server that
 * runs trusted documents only serves the dashboard from that manifest.
 * Types only come from the generated module: the bundle gains the manifest's text, no code.
 */

import type * as Op from '../../client/src/generated/graphql.ts';
import manifest from '../../client/src/generated/persisted-documents.json' with { type: 'json' };

/** A document as sent: its exact text and the hash the manifest lists it under, typed by result and variables. */
export interface Document<R, V> {
  readonly name: string;
  readonly kind: OperationKind;
  readonly text: string;
  readonly hash: string;
  /** Phantom fields that carry the types; never set. */
  readonly __result?: R;
  readonly __variables?: V;
}

export type OperationKind = 'query' | 'mutation' | 'subscription';

/** The operations a manifest text defines at its top level (fragments aside), by name. */
export function operationNames(text: string): string[] {
  return operations(text).map((o) => o.name);
}

function operations(text: string): { name: string; kind: OperationKind }[] {
  const found: { name: string; kind: OperationKind }[] = [];
  let depth = 0;
  const word = /(query|mutation|subscription)\s+(\w+)/y;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '{') depth++;
    else if (c === '}') depth--;
    else if (depth === 0 && (i === 0 || /\s/.test(text[i - 1] ?? ''))) {
      word.lastIndex = i;
      const m = word.exec(text);
      if (m?.[1] && m[2]) found.push({ name: m[2], kind: m[1] as OperationKind });
    }
  }
  return found;
}

const BY_NAME = new Map<string, { text: string; hash: string; kind: OperationKind }>();
for (const [hash, text] of Object.entries(manifest as Record<string, string>)) {
  for (const { name, kind } of operations(text)) BY_NAME.set(name, { text, hash, kind });
}

/** The manifest's document for an operation name: what goes on the wire, whatever text a client printed. */
export function documentNamed<R = unknown, V = unknown>(name: string): Document<R, V> {
  const found = BY_NAME.get(name);
  if (!found) throw new Error(`the client package ships no operation named ${name}`);
  return { name, ...found };
}

const document = documentNamed;

export const AppendDocument = document<Op.AppendMutation, Op.AppendMutationVariables>('Append');
export const BriefDocument = document<Op.BriefQuery, Op.BriefQueryVariables>('Brief');
export const CaptureDocument = document<Op.CaptureMutation, Op.CaptureMutationVariables>('Capture');
export const EntriesDocument = document<Op.EntriesQuery, Op.EntriesQueryVariables>('Entries');
export const EntryDocument = document<Op.EntryQuery, Op.EntryQueryVariables>('Entry');
export const EntryDetailDocument = document<Op.EntryDetailQuery, Op.EntryDetailQueryVariables>('EntryDetail');
export const FeedEventsDocument = document<Op.FeedEventsSubscription, Op.FeedEventsSubscriptionVariables>('FeedEvents');
export const ForgetDocument = document<Op.ForgetMutation, Op.ForgetMutationVariables>('Forget');
export const GraphViewDocument = document<Op.GraphViewQuery, Op.GraphViewQueryVariables>('GraphView');
export const LastEventSeqDocument = document<Op.LastEventSeqQuery, Op.LastEventSeqQueryVariables>('LastEventSeq');
export const LinkDocument = document<Op.LinkMutation, Op.LinkMutationVariables>('Link');
export const RecallExplainedDocument = document<Op.RecallExplainedQuery, Op.RecallExplainedQueryVariables>(
  'RecallExplained',
);
export const RecentEntriesDocument = document<Op.RecentEntriesQuery, Op.RecentEntriesQueryVariables>('RecentEntries');
export const SetStatusDocument = document<Op.SetStatusMutation, Op.SetStatusMutationVariables>('SetStatus');
export const UnlinkDocument = document<Op.UnlinkMutation, Op.UnlinkMutationVariables>('Unlink');
export const UpdateDocument = document<Op.UpdateMutation, Op.UpdateMutationVariables>('Update');

export type * from '../../client/src/generated/graphql.ts';
