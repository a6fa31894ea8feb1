import type { GqlOptions, TestServer } from './server.ts';

/*
 * The operations tests send most, each written once with variables. A test that selects other
 * fields on purpose (revisions, full edges, snippets) keeps its own document beside its assertions.
 */

/** Stores an entry: `{ input: CaptureInput }` → `capture { outcome entry { id } }`. */
export const CAPTURE = 'mutation ($input: CaptureInput!) { capture(input: $input) { outcome entry { id } } }';

/** CAPTURE that also answers the stored content, for tests that check which text was kept. */
export const CAPTURE_CONTENT =
  'mutation ($input: CaptureInput!) { capture(input: $input) { outcome entry { id content } } }';

/** `{ id, addition }` → `append { entry { id } }`. */
export const APPEND =
  'mutation ($id: ID!, $addition: String!) { append(input: { id: $id, addition: $addition }) { entry { id } } }';

/** `{ id, content }` → `update { entry { id } }`. */
export const UPDATE =
  'mutation ($id: ID!, $content: String!) { update(input: { id: $id, content: $content }) { entry { id } } }';

/** `{ id }` → `forget { forgottenId forgotten }`. */
export const FORGET = 'mutation ($id: ID!) { forget(input: { id: $id }) { forgottenId forgotten } }';

/** `{ input: LinkInput }` → `link { edge { src dst type } }`. */
export const LINK = 'mutation ($input: LinkInput!) { link(input: $input) { edge { src dst type } } }';

/** `{ src, dst, type }` → `unlink { removedEdgeId }` (null when there was no such edge). */
export const UNLINK =
  'mutation ($src: ID!, $dst: ID!, $type: EdgeType!) { unlink(input: { src: $src, dst: $dst, type: $type }) { removedEdgeId } }';

/**
 * `{ q, topK?, hops?, asOf? }` → `recall { hits { rank entry { id } } }`. A variable left out
 * leaves its argument out, so the server's default applies.
 */
export const RECALL = `query ($q: String!, $topK: Int, $hops: Int, $asOf: DateTime) {
  recall(query: $q, topK: $topK, hops: $hops, asOf: $asOf) { hits { rank entry { id } } }
}`;

type Sender = Pick<TestServer, 'gqlOk'>;

/** Captures `input` (failing the test on any error) and returns the entry's id. */
export async function captureId(t: Sender, input: Record<string, unknown>, opts?: GqlOptions): Promise<string> {
  const data = await t.gqlOk<{ capture: { entry: { id: string } | null } }>(CAPTURE, { input }, opts);
  if (!data.capture.entry) throw new Error(`capture of ${JSON.stringify(input)} stored no entry`);
  return data.capture.entry.id;
}

/** Links `input` (failing the test on any error) and returns the edge's ends and type. */
export async function linkEdge(
  t: Sender,
  input: Record<string, unknown>,
  opts?: GqlOptions,
): Promise<{ src: string; dst: string; type: string }> {
  return (await t.gqlOk<{ link: { edge: { src: string; dst: string; type: string } } }>(LINK, { input }, opts)).link
    .edge;
}
