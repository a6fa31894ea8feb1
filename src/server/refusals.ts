import type { Plugin } from 'graphql-yoga';
import { refusalBody } from './guard.ts';

const STATUS_MEANING: Record<number, string> = {
  404: 'nothing is served at this path; GraphQL is at /graphql',
  406: 'the Accept header allows no response type this server sends (application/json, application/graphql-response+json, text/event-stream)',
  415: 'unsupported Content-Type: send application/json',
};

/**
 * Every refusal carries a code: Yoga answers some protocol refusals (an unsupported
 * media type, an unacceptable Accept header) with an empty body, which a client cannot
 * tell apart from a broken proxy. Those get a GraphQL-shaped body with `BAD_REQUEST`
 * (`NOT_FOUND` for 404).
 */
export function useCodedRefusals(): Plugin {
  return {
    onResponse({ response, setResponse, fetchAPI }) {
      if (response.status < 400 || response.headers.get('content-type')) return;
      const message = STATUS_MEANING[response.status] ?? 'the request was refused';
      const code = response.status === 404 ? 'NOT_FOUND' : 'BAD_REQUEST';
      setResponse(
        new fetchAPI.Response(refusalBody({ message, code }), {
          status: response.status,
          headers: { 'content-type': 'application/json; charset=utf-8' },
        }),
      );
    },
  };
}

/** Adds `Vary: Origin` to every answer, so that no shared cache gives one origin's answer to another. */
export function useVaryOrigin(): Plugin {
  return {
    onResponse({ response }) {
      const varies = (response.headers.get('vary') ?? '').toLowerCase().split(/\s*,\s*/);
      if (!varies.includes('origin')) response.headers.append('vary', 'Origin');
    },
  };
}
