/** The GraphQL operations the performance benches time, one copy for bench/perf.ts and bench/ab.ts. */

export const RECALL = `query Recall($q: String!) {
  recall(query: $q, topK: 8, hops: 1) {
    queryUsed candidates usedChars
    hits { rank score snippet truncated arms hop entry { id kind tags freshness } }
  }
}`;

export const GRAPH_VIEW = `query Graph($id: ID!) {
  graphView(seedIds: [$id], hops: 3) {
    truncated
    nodes { hop score entry { id kind } }
    edges { src dst type weight }
  }
}`;
