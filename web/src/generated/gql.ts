/* eslint-disable */
import * as types from './graphql.js';



/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "mutation Append($input: AppendInput!) {\n  append(input: $input) {\n    entry {\n      ...EntryFields\n    }\n  }\n}": typeof types.AppendDocument,
    "query Brief {\n  brief {\n    workspace\n    text\n    stats {\n      workspace\n      entries\n      edges\n      tags\n      revisions\n      oldestAt\n      newestAt\n      byKind {\n        key\n        count\n      }\n      byStatus {\n        key\n        count\n      }\n      byVolatility {\n        key\n        count\n      }\n      byClaimTag {\n        key\n        count\n      }\n      edgesByType {\n        key\n        count\n      }\n    }\n    recent {\n      ...EntryFields\n    }\n    important {\n      ...EntryFields\n    }\n    stale {\n      ...EntryFields\n    }\n    topTags {\n      tag\n      count\n    }\n  }\n}": typeof types.BriefDocument,
    "mutation Capture($input: CaptureInput!) {\n  capture(input: $input) {\n    outcome\n    matchId\n    entry {\n      ...EntryFields\n    }\n  }\n}\n\nfragment EntryFields on Entry {\n  id\n  content\n  kind\n  status\n  claimTag\n  tags\n  importance\n  volatility\n  freshness\n  source\n  evidenceRef\n  observedAt\n  createdAt\n  updatedAt\n}": typeof types.CaptureDocument,
    "query EntryDetail($id: ID!) {\n  entry(id: $id) {\n    ...EntryFields\n    recallCount\n    contentHash\n    classification {\n      kind\n      volatility\n      importance\n      model\n    }\n    conflicts {\n      entry {\n        id\n        content\n      }\n      newer\n      relation\n      reason\n      confidence\n      model\n      at\n    }\n    revisions {\n      id\n      content\n      op\n      at\n    }\n    connections {\n      direction\n      edge {\n        ...EdgeFields\n      }\n      entry {\n        id\n        content\n        kind\n        status\n        freshness\n      }\n    }\n  }\n}": typeof types.EntryDetailDocument,
    "subscription FeedEvents($sinceSeq: Int, $types: [MemoryEventType!]) {\n  events(sinceSeq: $sinceSeq, types: $types) {\n    seq\n    type\n    at\n    entryId\n    outcome\n    entry {\n      id\n      content\n      kind\n      status\n      tags\n    }\n    edge {\n      id\n      src\n      dst\n      type\n      weight\n    }\n  }\n}": typeof types.FeedEventsDocument,
    "mutation Forget($input: ForgetInput!) {\n  forget(input: $input) {\n    forgotten\n    forgottenId\n  }\n}": typeof types.ForgetDocument,
    "query GraphView($seedIds: [ID!]!, $hops: Int) {\n  graphView(seedIds: $seedIds, hops: $hops) {\n    truncated\n    nodes {\n      hop\n      score\n      entry {\n        ...EntryFields\n      }\n    }\n    edges {\n      ...EdgeFields\n    }\n  }\n}": typeof types.GraphViewDocument,
    "query LastEventSeq {\n  lastEventSeq\n  stats {\n    workspace\n  }\n}": typeof types.LastEventSeqDocument,
    "mutation Link($input: LinkInput!) {\n  link(input: $input) {\n    edge {\n      ...EdgeFields\n    }\n  }\n}\n\nfragment EdgeFields on Edge {\n  id\n  src\n  dst\n  type\n  weight\n  provenance\n  metadata\n  createdAt\n  updatedAt\n}": typeof types.LinkDocument,
    "query RecallExplained($query: String!, $topK: Int, $hops: Int, $tag: String, $kind: EntryKind, $filter: RecallFilter, $asOf: DateTime, $full: Boolean) {\n  recall(\n    query: $query\n    topK: $topK\n    hops: $hops\n    tag: $tag\n    kind: $kind\n    filter: $filter\n    asOf: $asOf\n    full: $full\n  ) {\n    query\n    queryUsed\n    timeRange {\n      from\n      to\n      phrase\n    }\n    candidates\n    usedChars\n    budgetChars\n    policyVersion\n    omitted {\n      entryId\n      reason\n    }\n    hits {\n      rank\n      score\n      snippet\n      truncated\n      hop\n      arms\n      via {\n        id\n        src\n        dst\n        type\n        weight\n      }\n      explain {\n        keywordRank\n        bm25\n        graphScore\n        vectorRank\n        rrf\n        decay\n        recallBoost\n        importance\n        tagOverlap\n        final\n      }\n      entry {\n        ...EntryFields\n      }\n    }\n  }\n}": typeof types.RecallExplainedDocument,
    "query RecentEntries($n: Int) {\n  recent(n: $n) {\n    id\n    content\n    kind\n  }\n}": typeof types.RecentEntriesDocument,
    "mutation SetStatus($input: SetStatusInput!) {\n  setStatus(input: $input) {\n    entry {\n      ...EntryFields\n    }\n  }\n}": typeof types.SetStatusDocument,
    "mutation Unlink($input: UnlinkInput!) {\n  unlink(input: $input) {\n    removedEdgeId\n    source {\n      id\n    }\n    target {\n      id\n    }\n  }\n}": typeof types.UnlinkDocument,
    "mutation Update($input: UpdateInput!) {\n  update(input: $input) {\n    entry {\n      ...EntryFields\n    }\n  }\n}": typeof types.UpdateDocument,
};
const documents: Documents = {
    "mutation Append($input: AppendInput!) {\n  append(input: $input) {\n    entry {\n      ...EntryFields\n    }\n  }\n}": types.AppendDocument,
    "query Brief {\n  brief {\n    workspace\n    text\n    stats {\n      workspace\n      entries\n      edges\n      tags\n      revisions\n      oldestAt\n      newestAt\n      byKind {\n        key\n        count\n      }\n      byStatus {\n        key\n        count\n      }\n      byVolatility {\n        key\n        count\n      }\n      byClaimTag {\n        key\n        count\n      }\n      edgesByType {\n        key\n        count\n      }\n    }\n    recent {\n      ...EntryFields\n    }\n    important {\n      ...EntryFields\n    }\n    stale {\n      ...EntryFields\n    }\n    topTags {\n      tag\n      count\n    }\n  }\n}": types.BriefDocument,
    "mutation Capture($input: CaptureInput!) {\n  capture(input: $input) {\n    outcome\n    matchId\n    entry {\n      ...EntryFields\n    }\n  }\n}\n\nfragment EntryFields on Entry {\n  id\n  content\n  kind\n  status\n  claimTag\n  tags\n  importance\n  volatility\n  freshness\n  source\n  evidenceRef\n  observedAt\n  createdAt\n  updatedAt\n}": types.CaptureDocument,
    "query EntryDetail($id: ID!) {\n  entry(id: $id) {\n    ...EntryFields\n    recallCount\n    contentHash\n    classification {\n      kind\n      volatility\n      importance\n      model\n    }\n    conflicts {\n      entry {\n        id\n        content\n      }\n      newer\n      relation\n      reason\n      confidence\n      model\n      at\n    }\n    revisions {\n      id\n      content\n      op\n      at\n    }\n    connections {\n      direction\n      edge {\n        ...EdgeFields\n      }\n      entry {\n        id\n        content\n        kind\n        status\n        freshness\n      }\n    }\n  }\n}": types.EntryDetailDocument,
    "subscription FeedEvents($sinceSeq: Int, $types: [MemoryEventType!]) {\n  events(sinceSeq: $sinceSeq, types: $types) {\n    seq\n    type\n    at\n    entryId\n    outcome\n    entry {\n      id\n      content\n      kind\n      status\n      tags\n    }\n    edge {\n      id\n      src\n      dst\n      type\n      weight\n    }\n  }\n}": types.FeedEventsDocument,
    "mutation Forget($input: ForgetInput!) {\n  forget(input: $input) {\n    forgotten\n    forgottenId\n  }\n}": types.ForgetDocument,
    "query GraphView($seedIds: [ID!]!, $hops: Int) {\n  graphView(seedIds: $seedIds, hops: $hops) {\n    truncated\n    nodes {\n      hop\n      score\n      entry {\n        ...EntryFields\n      }\n    }\n    edges {\n      ...EdgeFields\n    }\n  }\n}": types.GraphViewDocument,
    "query LastEventSeq {\n  lastEventSeq\n  stats {\n    workspace\n  }\n}": types.LastEventSeqDocument,
    "mutation Link($input: LinkInput!) {\n  link(input: $input) {\n    edge {\n      ...EdgeFields\n    }\n  }\n}\n\nfragment EdgeFields on Edge {\n  id\n  src\n  dst\n  type\n  weight\n  provenance\n  metadata\n  createdAt\n  updatedAt\n}": types.LinkDocument,
    "query RecallExplained($query: String!, $topK: Int, $hops: Int, $tag: String, $kind: EntryKind, $filter: RecallFilter, $asOf: DateTime, $full: Boolean) {\n  recall(\n    query: $query\n    topK: $topK\n    hops: $hops\n    tag: $tag\n    kind: $kind\n    filter: $filter\n    asOf: $asOf\n    full: $full\n  ) {\n    query\n    queryUsed\n    timeRange {\n      from\n      to\n      phrase\n    }\n    candidates\n    usedChars\n    budgetChars\n    policyVersion\n    omitted {\n      entryId\n      reason\n    }\n    hits {\n      rank\n      score\n      snippet\n      truncated\n      hop\n      arms\n      via {\n        id\n        src\n        dst\n        type\n        weight\n      }\n      explain {\n        keywordRank\n        bm25\n        graphScore\n        vectorRank\n        rrf\n        decay\n        recallBoost\n        importance\n        tagOverlap\n        final\n      }\n      entry {\n        ...EntryFields\n      }\n    }\n  }\n}": types.RecallExplainedDocument,
    "query RecentEntries($n: Int) {\n  recent(n: $n) {\n    id\n    content\n    kind\n  }\n}": types.RecentEntriesDocument,
    "mutation SetStatus($input: SetStatusInput!) {\n  setStatus(input: $input) {\n    entry {\n      ...EntryFields\n    }\n  }\n}": types.SetStatusDocument,
    "mutation Unlink($input: UnlinkInput!) {\n  unlink(input: $input) {\n    removedEdgeId\n    source {\n      id\n    }\n    target {\n      id\n    }\n  }\n}": types.UnlinkDocument,
    "mutation Update($input: UpdateInput!) {\n  update(input: $input) {\n    entry {\n      ...EntryFields\n    }\n  }\n}": types.UpdateDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation Append($input: AppendInput!) {\n  append(input: $input) {\n    entry {\n      ...EntryFields\n    }\n  }\n}"): typeof import('./graphql.js').AppendDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query Brief {\n  brief {\n    workspace\n    text\n    stats {\n      workspace\n      entries\n      edges\n      tags\n      revisions\n      oldestAt\n      newestAt\n      byKind {\n        key\n        count\n      }\n      byStatus {\n        key\n        count\n      }\n      byVolatility {\n        key\n        count\n      }\n      byClaimTag {\n        key\n        count\n      }\n      edgesByType {\n        key\n        count\n      }\n    }\n    recent {\n      ...EntryFields\n    }\n    important {\n      ...EntryFields\n    }\n    stale {\n      ...EntryFields\n    }\n    topTags {\n      tag\n      count\n    }\n  }\n}"): typeof import('./graphql.js').BriefDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation Capture($input: CaptureInput!) {\n  capture(input: $input) {\n    outcome\n    matchId\n    entry {\n      ...EntryFields\n    }\n  }\n}\n\nfragment EntryFields on Entry {\n  id\n  content\n  kind\n  status\n  claimTag\n  tags\n  importance\n  volatility\n  freshness\n  source\n  evidenceRef\n  observedAt\n  createdAt\n  updatedAt\n}"): typeof import('./graphql.js').CaptureDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query EntryDetail($id: ID!) {\n  entry(id: $id) {\n    ...EntryFields\n    recallCount\n    contentHash\n    classification {\n      kind\n      volatility\n      importance\n      model\n    }\n    conflicts {\n      entry {\n        id\n        content\n      }\n      newer\n      relation\n      reason\n      confidence\n      model\n      at\n    }\n    revisions {\n      id\n      content\n      op\n      at\n    }\n    connections {\n      direction\n      edge {\n        ...EdgeFields\n      }\n      entry {\n        id\n        content\n        kind\n        status\n        freshness\n      }\n    }\n  }\n}"): typeof import('./graphql.js').EntryDetailDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "subscription FeedEvents($sinceSeq: Int, $types: [MemoryEventType!]) {\n  events(sinceSeq: $sinceSeq, types: $types) {\n    seq\n    type\n    at\n    entryId\n    outcome\n    entry {\n      id\n      content\n      kind\n      status\n      tags\n    }\n    edge {\n      id\n      src\n      dst\n      type\n      weight\n    }\n  }\n}"): typeof import('./graphql.js').FeedEventsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation Forget($input: ForgetInput!) {\n  forget(input: $input) {\n    forgotten\n    forgottenId\n  }\n}"): typeof import('./graphql.js').ForgetDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query GraphView($seedIds: [ID!]!, $hops: Int) {\n  graphView(seedIds: $seedIds, hops: $hops) {\n    truncated\n    nodes {\n      hop\n      score\n      entry {\n        ...EntryFields\n      }\n    }\n    edges {\n      ...EdgeFields\n    }\n  }\n}"): typeof import('./graphql.js').GraphViewDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query LastEventSeq {\n  lastEventSeq\n  stats {\n    workspace\n  }\n}"): typeof import('./graphql.js').LastEventSeqDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation Link($input: LinkInput!) {\n  link(input: $input) {\n    edge {\n      ...EdgeFields\n    }\n  }\n}\n\nfragment EdgeFields on Edge {\n  id\n  src\n  dst\n  type\n  weight\n  provenance\n  metadata\n  createdAt\n  updatedAt\n}"): typeof import('./graphql.js').LinkDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query RecallExplained($query: String!, $topK: Int, $hops: Int, $tag: String, $kind: EntryKind, $filter: RecallFilter, $asOf: DateTime, $full: Boolean) {\n  recall(\n    query: $query\n    topK: $topK\n    hops: $hops\n    tag: $tag\n    kind: $kind\n    filter: $filter\n    asOf: $asOf\n    full: $full\n  ) {\n    query\n    queryUsed\n    timeRange {\n      from\n      to\n      phrase\n    }\n    candidates\n    usedChars\n    budgetChars\n    policyVersion\n    omitted {\n      entryId\n      reason\n    }\n    hits {\n      rank\n      score\n      snippet\n      truncated\n      hop\n      arms\n      via {\n        id\n        src\n        dst\n        type\n        weight\n      }\n      explain {\n        keywordRank\n        bm25\n        graphScore\n        vectorRank\n        rrf\n        decay\n        recallBoost\n        importance\n        tagOverlap\n        final\n      }\n      entry {\n        ...EntryFields\n      }\n    }\n  }\n}"): typeof import('./graphql.js').RecallExplainedDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query RecentEntries($n: Int) {\n  recent(n: $n) {\n    id\n    content\n    kind\n  }\n}"): typeof import('./graphql.js').RecentEntriesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation SetStatus($input: SetStatusInput!) {\n  setStatus(input: $input) {\n    entry {\n      ...EntryFields\n    }\n  }\n}"): typeof import('./graphql.js').SetStatusDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation Unlink($input: UnlinkInput!) {\n  unlink(input: $input) {\n    removedEdgeId\n    source {\n      id\n    }\n    target {\n      id\n    }\n  }\n}"): typeof import('./graphql.js').UnlinkDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation Update($input: UpdateInput!) {\n  update(input: $input) {\n    entry {\n      ...EntryFields\n    }\n  }\n}"): typeof import('./graphql.js').UpdateDocument;


export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}
