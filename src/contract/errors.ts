/**
 * Every expected failure, of the API and of the command line alike, is a DomainError with
 * one of these codes. The GraphQL layer turns it into a GraphQLError with
 * `extensions.code` in one place (graphql/errors.ts), the command line into a message and
 * an exit status in one place (cli/main.ts).
 */
export type ErrorCode =
  | 'BAD_USER_INPUT'
  | 'NOT_FOUND'
  | 'EDGE_KIND_MISMATCH'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'RATE_LIMITED'
  /** The database cannot take the request now (full, read-only, unreachable); nothing was written. */
  | 'UNAVAILABLE'
  /** An answer larger than SPHERE_MAX_RESPONSE_BYTES. */
  | 'RESPONSE_TOO_LARGE'
  /** A SUPERSEDES edge that would close a cycle (an entry superseding itself through a chain); nothing was written. */
  | 'SUPERSEDES_CYCLE'
  /** A write that would take the workspace past SPHERE_MAX_WORKSPACE_MB; nothing was written. */
  | 'QUOTA_EXCEEDED'
  /** A write's precondition no longer holds (the entry changed since the caller read it); nothing was written. */
  | 'CONFLICT'
  /** A command line that does not parse: unknown flags, missing arguments (exit status 2). */
  | 'USAGE';

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const badInput = (message: string, field?: string) =>
  new DomainError('BAD_USER_INPUT', message, field ? { field } : {});

/** How much of an id a message echoes: any real id is far shorter, and an answer must not grow with a client's garbage. */
const ECHOED_ID_MAX = 200;

export const notFound = (id: string) => {
  const shown = id.length > ECHOED_ID_MAX ? `${id.slice(0, ECHOED_ID_MAX)}…` : id;
  return new DomainError('NOT_FOUND', `no entry with id ${JSON.stringify(shown)}`, { id: shown });
};

/** A command line that does not parse (exit status 2). */
export const usage = (message: string) => new DomainError('USAGE', message);
