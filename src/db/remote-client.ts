import {
  type Client,
  type InArgs,
  type InStatement,
  LibsqlError,
  type ResultSet,
  type Transaction,
  type TransactionMode,
} from '@libsql/client';
import { DomainError } from '../contract/errors.ts';

/**
 * Codes @libsql/client gives a request that failed on the way to or from the database
 * service rather than in SQL: an HTTP error (a 401 for a wrong token is SERVER_ERROR), a
 * stream or transaction the service ended (idle too long, open past its 5-second limit),
 * a broken protocol exchange. A plain `TypeError: fetch failed` (refused, reset, dropped)
 * is not a LibsqlError at all.
 */
const TRANSPORT_CODES = new Set([
  'SERVER_ERROR',
  'HRANA_PROTO_ERROR',
  'HRANA_CLOSED_ERROR',
  'HRANA_WEBSOCKET_ERROR',
  'PROTOCOL_VERSION_ERROR',
  'STREAM_EXPIRED',
  'STREAM_CLOSED',
  'TRANSACTION_TIMEOUT',
  'TRANSACTION_BUSY',
  'TRANSACTION_CLOSED',
  'PROXY_ERROR',
]);

/** What went wrong on the wire, in a few words (an error code, an errno), never a URL or a token. */
function describeTransport(error: unknown): string | null {
  if (error instanceof LibsqlError) {
    if (!TRANSPORT_CODES.has(error.code)) return null;
    const status = /HTTP status (\d+)/.exec(error.message)?.[1];
    return status ? `${error.code}, HTTP ${status}` : error.code;
  }
  if (error instanceof TypeError && error.message === 'fetch failed') {
    const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
    return `fetch failed${typeof cause?.code === 'string' ? `, ${cause.code}` : cause?.message ? `, ${String(cause.message)}` : ''}`;
  }
  return null;
}

/**
 * A transport failure becomes a retryable UNAVAILABLE that names its cause (kept as
 * `cause` too); SQL errors (constraints, syntax) pass through unchanged.
 */
export function remoteFailure(error: unknown): unknown {
  const reason = describeTransport(error);
  if (reason === null) return error;
  const unavailable = new DomainError(
    'UNAVAILABLE',
    `the hosted database could not complete the request (${reason}); retry later`,
  );
  return Object.assign(unavailable, { cause: error });
}

const mapped = <T>(run: () => Promise<T>): Promise<T> =>
  run().catch((error: unknown) => {
    throw remoteFailure(error);
  });

/**
 * The stock remote client, its failures on the wire turned into UNAVAILABLE so that every
 * caller (reads, the writer, migrations, the command line) answers a dropped connection,
 * a refused one, a wrong token or an expired transaction the same way: retryable, with the
 * cause named, and never as an internal error.
 */
export class RemoteClient implements Client {
  readonly #inner: Client;

  constructor(inner: Client) {
    this.#inner = inner;
  }

  get protocol() {
    return this.#inner.protocol;
  }

  get closed(): boolean {
    return this.#inner.closed;
  }

  execute(stmt: InStatement | string, args?: InArgs): Promise<ResultSet> {
    return mapped(() => (typeof stmt === 'string' ? this.#inner.execute(stmt, args) : this.#inner.execute(stmt)));
  }

  batch(stmts: Array<InStatement | [string, InArgs?]>, mode?: TransactionMode): Promise<ResultSet[]> {
    return mapped(() => this.#inner.batch(stmts, mode));
  }

  migrate(stmts: InStatement[]): Promise<ResultSet[]> {
    return mapped(() => this.#inner.migrate(stmts));
  }

  async transaction(mode?: TransactionMode): Promise<Transaction> {
    return new RemoteTransaction(await mapped(() => this.#inner.transaction(mode)));
  }

  executeMultiple(sql: string): Promise<void> {
    return mapped(() => this.#inner.executeMultiple(sql));
  }

  sync() {
    return this.#inner.sync();
  }

  reconnect() {
    return this.#inner.reconnect();
  }

  close(): void {
    this.#inner.close();
  }
}

class RemoteTransaction implements Transaction {
  readonly #inner: Transaction;

  constructor(inner: Transaction) {
    this.#inner = inner;
  }

  get closed(): boolean {
    return this.#inner.closed;
  }

  execute(stmt: InStatement): Promise<ResultSet> {
    return mapped(() => this.#inner.execute(stmt));
  }

  batch(stmts: InStatement[]): Promise<ResultSet[]> {
    return mapped(() => this.#inner.batch(stmts));
  }

  executeMultiple(sql: string): Promise<void> {
    return mapped(() => this.#inner.executeMultiple(sql));
  }

  rollback(): Promise<void> {
    return mapped(() => this.#inner.rollback());
  }

  commit(): Promise<void> {
    return mapped(() => this.#inner.commit());
  }

  close(): void {
    this.#inner.close();
  }
}
