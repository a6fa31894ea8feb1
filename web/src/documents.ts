/** The GraphQL documents the dashboard sends, all against the public API. */

const ENTRY_SUMMARY = 'id content kind status volatility freshness importance claimTag tags createdAt updatedAt';

export const EVENT_FIELDS =
  'seq type at entryId outcome entry { id content kind status tags } edge { src dst type weight }';

export const EVENTS_SUBSCRIPTION = `subscription DashboardEvents($sinceSeq: Int) {
  events(sinceSeq: $sinceSeq) { ${EVENT_FIELDS} }
}`;

export const LAST_EVENT_SEQ = 'query LastEventSeq { lastEventSeq stats { workspace } }';

export const RECENT = 'query Recent($n: Int) { recent(n: $n) { id content kind } }';

export const ENTRY = `query Entry($id: ID!) {
  entry(id: $id) {
    ${ENTRY_SUMMARY} source evidenceRef recallCount contentHash observedAt
    revisions { content op at }
    connections { direction edge { src dst type weight provenance metadata createdAt } entry { id content kind status freshness } }
  }
}`;

export const RECALL = `query Recall($query: String!, $topK: Int, $hops: Int, $full: Boolean, $tag: String, $kind: EntryKind,
    $filter: RecallFilter) {
  recall(query: $query, topK: $topK, hops: $hops, full: $full, tag: $tag, kind: $kind, filter: $filter) {
    query queryUsed timeRange { from to phrase } candidates usedChars budgetChars policyVersion
    omitted { entryId reason }
    hits {
      rank score snippet truncated arms hop via { src dst type weight }
      explain { keywordRank bm25 graphScore vectorRank rrf decay recallBoost importance tagOverlap final }
      entry { ${ENTRY_SUMMARY} }
    }
  }
}`;

export const GRAPH_VIEW = `query GraphView($seedIds: [ID!]!, $hops: Int) {
  graphView(seedIds: $seedIds, hops: $hops) {
    truncated
    nodes { hop score entry { id content kind status freshness } }
    edges { src dst type weight provenance }
  }
}`;

const COUNTS = 'entries edges tags revisions oldestAt newestAt';
const BY = (name: string) => `${name} { key count }`;
export const BRIEF = `query Brief {
  brief {
    text
    stats { ${COUNTS} ${['byKind', 'byStatus', 'byVolatility', 'byClaimTag', 'edgesByType'].map(BY).join(' ')} }
    recent { ${ENTRY_SUMMARY} } important { ${ENTRY_SUMMARY} } stale { ${ENTRY_SUMMARY} }
    topTags { tag count }
  }
}`;

export const CAPTURE = `mutation Capture($input: CaptureInput!) {
  capture(input: $input) { outcome matchId entry { ${ENTRY_SUMMARY} } }
}`;

export const APPEND =
  'mutation Append($id: ID!, $addition: String!) { append(input: { id: $id, addition: $addition }) { entry { id } } }';
export const UPDATE =
  'mutation Update($id: ID!, $content: String!) { update(input: { id: $id, content: $content }) { entry { id } } }';
export const SET_STATUS =
  'mutation SetStatus($id: ID!, $status: EntryStatus!) { setStatus(input: { id: $id, status: $status }) { entry { id status } } }';
export const FORGET = 'mutation Forget($id: ID!) { forget(input: { id: $id }) { forgottenId forgotten } }';
export const LINK = 'mutation Link($input: LinkInput!) { link(input: $input) { edge { src dst type weight } } }';
export const UNLINK =
  'mutation Unlink($src: ID!, $dst: ID!, $type: EdgeType!) { unlink(input: { src: $src, dst: $dst, type: $type }) { removedEdgeId } }';
