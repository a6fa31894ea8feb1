/**
 * Expected failures of domain operations. Each carries the contract's error code; the
 * GraphQL layer turns them into GraphQLErrors with `extensions.code` in one place.
 */
export type ErrorCode =
  | 'BAD_USER_INPUT'
  | 'NOT_FOUND'
  | 'EDGE_KIND_MISMATCH'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'RATE_LIMITED'
  | 'UNAVAILABLE';

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

export const notFound = (id: string) => new DomainError('NOT_FOUND', `no entry with id ${JSON.stringify(id)}`, { id });
