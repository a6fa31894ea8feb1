import type { Plugin } from 'graphql-yoga';
import { DomainError } from '../contract/errors.ts';
import { toGraphQLError } from '../graphql/errors.ts';

/** Content types a browser may send cross-site without a preflight (a form post, a beacon). */
const SIMPLE_CONTENT_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'];

/**
 * CSRF prevention: a request a browser could send from another site without a preflight
 * (a GET, or a POST with a "simple" content type) must carry one of `requestHeaders`,
 * which no such request can. Refused with 403 and `extensions.code: FORBIDDEN`.
 */
export function useCsrfPrevention(requestHeaders: readonly string[]): Plugin {
  return {
    onRequestParse({ request }) {
      const type = request.headers.get('content-type')?.toLowerCase();
      if (type && !SIMPLE_CONTENT_TYPES.some((t) => type.startsWith(t))) return;
      if (requestHeaders.some((name) => request.headers.has(name))) return;
      throw toGraphQLError(
        new DomainError(
          'FORBIDDEN',
          `this request could come from another web page; send a JSON body or one of the headers ${requestHeaders.join(', ')}`,
        ),
      );
    },
  };
}
