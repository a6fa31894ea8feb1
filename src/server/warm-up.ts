import { assertValidSchema, type GraphQLSchema, parse, validate } from 'graphql';
import type { Yoga } from './yoga.ts';

/**
 * A document shaped like the operations clients send most (a recall with variables, a
 * fragment, nested entries; a capture): what parsing and validating it compiles serves any
 * other document, since V8 compiles each function of the parser and of the validation rules
 * on its first call, whatever the document.
 */
const WARM_UP_DOCUMENT = `
query WarmUp($q: String!, $k: Int = 8) {
  recall(query: $q, topK: $k, hops: 1) { queryUsed hits { rank score snippet entry { ...E } } }
  recent(n: 1) { ...E }
}
fragment E on Entry { id kind tags content }
mutation WarmUpCapture($input: CaptureInput!) { capture(input: $input) { entry { id } } }
`;

/**
 * Does before the server listens what the first operation would otherwise do while clients
 * wait: graphql-js validates the schema once, on first use, and V8 compiles the parser and
 * every validation rule on their first call. From a cold start on a busy 2-core machine
 * that first operation held the event loop ~100 ms; after this, a few ms. Nothing runs:
 * the document is parsed and validated, through the same plugins (limits, costs) as a
 * request, and dropped.
 */
export function warmUp(yoga: Yoga): void {
  const { schema, parse: envelopedParse, validate: envelopedValidate } = yoga.getEnveloped({});
  assertValidSchema(schema as GraphQLSchema);
  const document = parse(WARM_UP_DOCUMENT);
  validate(schema as GraphQLSchema, document);
  try {
    envelopedValidate(schema, envelopedParse(WARM_UP_DOCUMENT));
  } catch {
    // A plugin that needs a request's context to validate is warmed by the first request.
  }
}
