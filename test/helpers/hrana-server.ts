import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import Database from 'libsql';

/**
 * A hosted libSQL service in one process, for tests: Hrana over HTTP (the version
 * @libsql/client 0.18 speaks: `POST <base>/v2/pipeline`, JSON; it never probes for v3 and
 * never opens a cursor), one database file per name, each reached under its own path
 * prefix (`http://127.0.0.1:<port>/<name>/`), the way sqld behaves where a client can tell:
 *
 * - streams tied together by batons that change on every response; a stream idle for
 *   `streamIdleMs` (sqld: 10 s) expires, and its open transaction is rolled back;
 * - an interactive transaction open longer than `txTimeoutMs` (sqld: 5 s) is rolled back,
 *   and every later statement of its stream fails with TRANSACTION_TIMEOUT;
 * - errors shaped as sqld's: `{ message: "SQLite error: …", code: "SQLITE_CONSTRAINT" }` per
 *   statement, HTTP 400 (text) for protocol errors, 500 `STREAM_EXPIRED`, 401 on a bad token;
 * - typed values: integers as decimal strings, floats, text, base64 blobs, null.
 *
 * Writers are serialized per database as sqld does (a write waits, without blocking the
 * event loop, until another stream's write transaction ends). Faults are injected on
 * demand: latency per request, dropped connections, refused connections, restarts.
 */

export interface HranaServerOptions {
  /** Where the database files live (`<dir>/<name>.db`). */
  dir: string;
  /** The bearer token every request must carry; null accepts any. */
  token?: string | null;
  port?: number;
  streamIdleMs?: number;
  txTimeoutMs?: number;
  /** Added to every HTTP request before it is served: a round trip's network time. */
  latencyMs?: number;
}

/** One HTTP request the server served, for measurements. */
export interface RoundTrip {
  database: string;
  /** The first words of each statement it carried (BEGIN IMMEDIATE, INSERT INTO entries, …). */
  statements: string[];
  /** How many statements it ran, those given by the id of a stored SQL text (which `statements` leaves out) included. */
  steps: number;
  /** performance.now() when it was read (after the injected latency) and when it was answered. */
  at: number;
  answeredAt?: number;
}

export interface DropRule {
  /** Drop only requests whose statements match (e.g. /^COMMIT/); every request when absent. */
  match?: RegExp;
  /** `before`: the request is never executed; `after`: executed, but the answer is lost. */
  when: 'before' | 'after';
  /** How many matching requests to drop. */
  count?: number;
}

type Conn = InstanceType<typeof Database>;
type Json = Record<string, unknown>;
type Value = null | bigint | number | string | Buffer;

interface DbState {
  name: string;
  path: string;
  idle: Conn[];
  /** The stream holding the write lock, and who waits for it. */
  writer: Stream | null;
  waiters: (() => void)[];
}

interface Stream {
  id: string;
  seq: number;
  db: DbState;
  conn: Conn;
  sqls: Map<number, string>;
  busy: boolean;
  idleTimer: NodeJS.Timeout | null;
  txTimer: NodeJS.Timeout | null;
  txTimedOut: boolean;
}

class ProtocolError extends Error {}
class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Json,
  ) {
    super(String(body.message ?? body.error));
  }
}

class StmtError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

const NAME = /^[a-z0-9_][a-z0-9_-]{0,62}$/;
const WRITE = /^\s*(INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER|BEGIN\s+(IMMEDIATE|EXCLUSIVE))\b/i;
const RETURNING = /\bRETURNING\b/i;
const BASE_CODES: Record<number, string> = {
  1: 'SQLITE_ERROR',
  2: 'SQLITE_INTERNAL',
  3: 'SQLITE_PERM',
  4: 'SQLITE_ABORT',
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  7: 'SQLITE_NOMEM',
  8: 'SQLITE_READONLY',
  9: 'SQLITE_INTERRUPT',
  10: 'SQLITE_IOERR',
  11: 'SQLITE_CORRUPT',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
  17: 'SQLITE_SCHEMA',
  18: 'SQLITE_TOOBIG',
  19: 'SQLITE_CONSTRAINT',
  20: 'SQLITE_MISMATCH',
  21: 'SQLITE_MISUSE',
  25: 'SQLITE_RANGE',
  26: 'SQLITE_NOTADB',
};
/** How long a write waits for another stream's write transaction before SQLITE_BUSY (sqld's busy timeout). */
const BUSY_WAIT_MS = 5_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class HranaTestServer {
  readonly dir: string;
  token: string | null;
  latencyMs: number;
  readonly streamIdleMs: number;
  readonly txTimeoutMs: number;
  /** Every request served, in order (`resetCounts` clears it). */
  readonly log: RoundTrip[] = [];
  readonly #dbs = new Map<string, DbState>();
  readonly #streams = new Map<string, Stream>();
  readonly #expired = new Set<string>();
  readonly #sockets = new Set<Socket>();
  readonly #counts = new Map<string, number>();
  #drops: { match: RegExp | null; when: 'before' | 'after'; count: number }[] = [];
  #delays: { match: RegExp; ms: number; count: number }[] = [];
  #server: Server | null = null;
  #port: number;

  constructor(opts: HranaServerOptions) {
    this.dir = opts.dir;
    mkdirSync(this.dir, { recursive: true });
    this.token = opts.token ?? null;
    this.latencyMs = opts.latencyMs ?? 0;
    this.streamIdleMs = opts.streamIdleMs ?? 10_000;
    this.txTimeoutMs = opts.txTimeoutMs ?? 5_000;
    this.#port = opts.port ?? 0;
  }

  /** http://127.0.0.1:<port> */
  get origin(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  /** SPHERE_DB_URL for this server. The trailing slash matters: see `openClient`. */
  get urlTemplate(): string {
    return `${this.origin}/{workspace}/`;
  }

  /** The URL of one database. */
  url(name: string): string {
    return `${this.origin}/${name}/`;
  }

  /** The file behind a database, to check what it holds directly. */
  dbPath(name: string): string {
    return join(this.dir, `${name}.db`);
  }

  /** HTTP requests served for a database since the last reset. */
  roundTrips(name: string): number {
    return this.#counts.get(name) ?? 0;
  }

  resetCounts(): void {
    this.#counts.clear();
    this.log.length = 0;
  }

  /** Streams open now (tests check that nothing leaks). */
  get openStreams(): number {
    return this.#streams.size;
  }

  /** Drops the connection of the next matching request(s). */
  drop(rule: DropRule): void {
    this.#drops.push({ match: rule.match ?? null, when: rule.when, count: rule.count ?? 1 });
  }

  /** Drop rules not used up yet (a test checks that its fault really happened). */
  get pendingDrops(): number {
    return this.#drops.reduce((sum, r) => sum + r.count, 0);
  }

  /** Holds the next matching request(s) for `ms` before serving them: a slow link at one moment. */
  delay(rule: { match: RegExp; ms: number; count?: number }): void {
    this.#delays.push({ match: rule.match, ms: rule.ms, count: rule.count ?? 1 });
  }

  async start(): Promise<void> {
    const server = createServer((req, res) => void this.#handle(req, res));
    server.keepAliveTimeout = 60_000;
    server.on('connection', (socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#port, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (address && typeof address === 'object') this.#port = address.port;
    this.#server = server;
  }

  /** Stops listening and cuts every connection: clients get ECONNREFUSED until `start()`. */
  async refuse(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    for (const socket of this.#sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** A restart: connections cut, every stream and open transaction gone, the files kept. */
  async restart(): Promise<void> {
    await this.refuse();
    this.#closeAll();
    await this.start();
  }

  async stop(): Promise<void> {
    await this.refuse();
    this.#closeAll();
  }

  #closeAll(): void {
    for (const stream of this.#streams.values()) this.#closeStream(stream, false);
    this.#streams.clear();
    this.#expired.clear();
    for (const db of this.#dbs.values()) {
      for (const conn of db.idle) conn.close();
      for (const wake of db.waiters) wake();
    }
    this.#dbs.clear();
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const match = /^\/([^/]+)\/(v\d+)(\/pipeline)?\/?$/.exec(new URL(req.url ?? '/', 'http://x').pathname);
    const name = match?.[1] ?? '';
    this.#counts.set(name, (this.#counts.get(name) ?? 0) + 1);
    if (this.latencyMs > 0) await sleep(this.latencyMs);
    // Cut off on its way (a restart, a refusal): it never reaches the database.
    if (req.socket.destroyed) return;
    try {
      if (this.token !== null && req.headers.authorization !== `Bearer ${this.token}`) {
        throw new HttpError(401, { error: 'Unauthorized: the authorization token is missing or not valid' });
      }
      if (!match || !NAME.test(name)) throw new HttpError(404, { error: `no database at ${req.url}` });
      if (match[2] !== 'v2') throw new HttpError(404, { error: `protocol ${match[2]} is not served` });
      if (!match[3]) return sendText(res, 200, 'Hello, this is HTTP API v2 (Hrana over HTTP)');
      if (req.method !== 'POST') throw new HttpError(405, { error: 'POST only' });
      const request = parseJson(body);
      const statements = sqlOf(request);
      const entry: RoundTrip = {
        database: name,
        statements: statements.map(firstWords),
        steps: stepsOf(request),
        at: performance.now(),
      };
      this.log.push(entry);
      const drop = this.#takeDrop(statements);
      if (drop === 'before') return void req.socket.destroy();
      const delay = this.#delays.find((r) => statements.some((s) => r.match.test(s)));
      if (delay) {
        if (--delay.count <= 0) this.#delays.splice(this.#delays.indexOf(delay), 1);
        await sleep(delay.ms);
      }
      const response = await this.#pipeline(name, request);
      if (drop === 'after') return void req.socket.destroy();
      entry.answeredAt = performance.now();
      sendJson(res, 200, response);
    } catch (error) {
      if (error instanceof HttpError) return sendJson(res, error.status, error.body);
      if (error instanceof ProtocolError) return sendText(res, 400, error.message);
      sendText(res, 500, String((error as Error)?.message ?? error));
    }
  }

  #takeDrop(statements: string[]): 'before' | 'after' | null {
    const rule = this.#drops.find((r) => r.match === null || statements.some((s) => r.match?.test(s)));
    if (!rule) return null;
    if (--rule.count <= 0) this.#drops.splice(this.#drops.indexOf(rule), 1);
    return rule.when;
  }

  async #pipeline(name: string, body: Json): Promise<Json> {
    const requests = body.requests;
    if (!Array.isArray(requests)) throw new ProtocolError('requests must be an array');
    const stream = this.#acquire(name, body.baton);
    try {
      if (sqlOf(body).some((s) => WRITE.test(s))) {
        const deadline = Date.now() + BUSY_WAIT_MS;
        // Checked again in the same turn as the statements run: several writers woken by one
        // commit go in one at a time, the first taking the lock before the next looks.
        while (this.#lockedFor(stream) && Date.now() < deadline) await this.#writerDone(stream.db, deadline);
      }
      const results = requests.map((r: Json) => this.#request(stream, r));
      return { baton: this.#release(stream), base_url: null, results };
    } catch (error) {
      this.#closeStream(stream);
      throw error;
    }
  }

  #acquire(name: string, baton: unknown): Stream {
    if (baton === null || baton === undefined) return this.#open(name);
    if (typeof baton !== 'string') throw new ProtocolError('baton must be a string');
    const [id, seq] = baton.split('.');
    if (id && this.#expired.has(id)) {
      throw new HttpError(500, { message: 'The stream has expired due to inactivity', code: 'STREAM_EXPIRED' });
    }
    const stream = id ? this.#streams.get(id) : undefined;
    if (!stream || stream.db.name !== name) throw new ProtocolError('The baton is invalid');
    if (stream.busy || String(stream.seq) !== seq) throw new ProtocolError('The baton has been reused');
    stream.busy = true;
    stream.seq++;
    if (stream.idleTimer) clearTimeout(stream.idleTimer);
    return stream;
  }

  #open(name: string): Stream {
    let db = this.#dbs.get(name);
    if (!db) {
      db = { name, path: this.dbPath(name), idle: [], writer: null, waiters: [] };
      this.#dbs.set(name, db);
    }
    let conn = db.idle.pop();
    if (!conn) {
      // No busy timeout: a wait would block this one thread, and with it the lock holder.
      conn = new Database(db.path, { timeout: 0 });
      conn.exec('PRAGMA journal_mode = WAL');
      // sqld runs SQLite on threads of its own, so one database's fsync never holds up the
      // requests of others; here SQLite runs on the one thread that also serves every HTTP
      // request, and an fsync per COMMIT (tens of ms on a busy disk) would stall them all.
      // Without it a commit still survives the process being killed, the faults tests make.
      conn.exec('PRAGMA synchronous = NORMAL');
    }
    const stream: Stream = {
      id: randomBytes(12).toString('base64url'),
      seq: randomBytes(4).readUInt32BE(),
      db,
      conn,
      sqls: new Map(),
      busy: true,
      idleTimer: null,
      txTimer: null,
      txTimedOut: false,
    };
    this.#streams.set(stream.id, stream);
    return stream;
  }

  /** Whether another stream of the database holds a write transaction. */
  #lockedFor(stream: Stream): boolean {
    return stream.db.writer !== null && stream.db.writer !== stream;
  }

  /** Resolves (without blocking) when the database's write transaction ends, or at the deadline. */
  async #writerDone(db: Stream['db'], deadline: number): Promise<void> {
    await Promise.race([new Promise<void>((r) => db.waiters.push(r)), sleep(deadline - Date.now())]);
  }

  #release(stream: Stream): string | null {
    stream.busy = false;
    if (!this.#streams.has(stream.id)) return null;
    const inTx = stream.conn.inTransaction;
    if (inTx && stream.db.writer === null) stream.db.writer = stream;
    if (!inTx) this.#endTx(stream);
    if (inTx && !stream.txTimer && !stream.txTimedOut) {
      stream.txTimer = setTimeout(() => this.#timeOutTx(stream), this.txTimeoutMs).unref();
    }
    stream.idleTimer = setTimeout(() => this.#expire(stream), this.streamIdleMs).unref();
    return `${stream.id}.${stream.seq}`;
  }

  #timeOutTx(stream: Stream): void {
    stream.txTimer = null;
    if (!stream.conn.inTransaction) return;
    stream.conn.exec('ROLLBACK');
    stream.txTimedOut = true;
    this.#endTx(stream);
  }

  #endTx(stream: Stream): void {
    if (stream.txTimer) clearTimeout(stream.txTimer);
    stream.txTimer = null;
    const db = stream.db;
    if (db.writer === stream) {
      db.writer = null;
      for (const wake of db.waiters.splice(0)) wake();
    }
  }

  #expire(stream: Stream): void {
    if (stream.busy || !this.#streams.has(stream.id)) return;
    this.#expired.add(stream.id);
    this.#closeStream(stream);
  }

  #closeStream(stream: Stream, keepConnection = true): void {
    if (stream.idleTimer) clearTimeout(stream.idleTimer);
    this.#streams.delete(stream.id);
    const conn = stream.conn;
    try {
      if (conn.inTransaction) conn.exec('ROLLBACK');
    } catch {
      // a connection that cannot roll back is closed below
    }
    this.#endTx(stream);
    if (keepConnection && conn.open && !conn.inTransaction && this.#dbs.get(stream.db.name) === stream.db) {
      stream.db.idle.push(conn);
    } else if (conn.open) {
      conn.close();
    }
  }

  #request(stream: Stream, req: Json): Json {
    if (!this.#streams.has(stream.id)) return errorResult('The stream is closed', 'STREAM_CLOSED');
    try {
      return { type: 'ok', response: this.#respond(stream, req) };
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      const e = toStmtError(error);
      return errorResult(e.message, e.code);
    }
  }

  #respond(stream: Stream, req: Json): Json {
    switch (req.type) {
      case 'execute':
        return { type: 'execute', result: this.#execute(stream, req.stmt as Json) };
      case 'batch':
        return { type: 'batch', result: this.#batch(stream, req.batch as Json) };
      case 'sequence':
        this.#checkTx(stream);
        stream.conn.exec(this.#sql(stream, req));
        return { type: 'sequence' };
      case 'describe':
        return { type: 'describe', result: describe(stream.conn, this.#sql(stream, req)) };
      case 'store_sql':
        stream.sqls.set(Number(req.sql_id), String(req.sql));
        return { type: 'store_sql' };
      case 'close_sql':
        stream.sqls.delete(Number(req.sql_id));
        return { type: 'close_sql' };
      case 'get_autocommit':
        return { type: 'get_autocommit', is_autocommit: !stream.conn.inTransaction };
      case 'close':
        this.#closeStream(stream);
        return { type: 'close' };
      default:
        throw new ProtocolError(`unknown request type ${JSON.stringify(req.type)}`);
    }
  }

  #sql(stream: Stream, holder: Json): string {
    if (typeof holder.sql === 'string') return holder.sql;
    const stored = stream.sqls.get(Number(holder.sql_id));
    if (stored === undefined) throw new ProtocolError(`SQL text ${String(holder.sql_id)} was not found`);
    return stored;
  }

  #checkTx(stream: Stream): void {
    if (stream.txTimedOut) throw new StmtError('Transaction timed out', 'TRANSACTION_TIMEOUT');
  }

  #execute(stream: Stream, stmt: Json): Json {
    this.#checkTx(stream);
    return execute(stream.conn, this.#sql(stream, stmt), stmt);
  }

  #batch(stream: Stream, batch: Json): Json {
    const steps = batch.steps as Json[];
    const results: (Json | null)[] = [];
    const errors: (Json | null)[] = [];
    steps.forEach((step, i) => {
      results[i] = null;
      errors[i] = null;
      if (step.condition && !evalCond(step.condition as Json, results, errors, stream.conn)) return;
      try {
        results[i] = this.#execute(stream, step.stmt as Json);
      } catch (error) {
        if (error instanceof ProtocolError) throw error;
        const e = toStmtError(error);
        errors[i] = { message: e.message, code: e.code };
      }
    });
    return { step_results: results, step_errors: errors };
  }
}

function evalCond(cond: Json, results: (Json | null)[], errors: (Json | null)[], conn: Conn): boolean {
  switch (cond.type) {
    case 'ok':
      return results[Number(cond.step)] != null;
    case 'error':
      return errors[Number(cond.step)] != null;
    case 'not':
      return !evalCond(cond.cond as Json, results, errors, conn);
    case 'and':
      return (cond.conds as Json[]).every((c) => evalCond(c, results, errors, conn));
    case 'or':
      return (cond.conds as Json[]).some((c) => evalCond(c, results, errors, conn));
    case 'is_autocommit':
      return !conn.inTransaction;
    default:
      throw new ProtocolError(`unknown condition ${JSON.stringify(cond.type)}`);
  }
}

function execute(conn: Conn, sql: string, stmt: Json): Json {
  const args = stmt.args as Json[] | undefined;
  const named = stmt.named_args as { name: string; value: Json }[] | undefined;
  if (args?.length && named?.length) {
    throw new StmtError(
      'Specifying both positional and named arguments is not supported',
      'ARGS_BOTH_POSITIONAL_AND_NAMED',
    );
  }
  const bound: Value[] | Record<string, Value> = named?.length
    ? Object.fromEntries(named.map((a) => [a.name.replace(/^[:@$]/, ''), fromProto(a.value)]))
    : (args ?? []).map(fromProto);
  const prepared = prepare(conn, sql);
  prepared.safeIntegers(true);
  if (prepared.reader) {
    prepared.raw(true);
    const rows = prepared.all(bound) as Value[][];
    const cols = prepared.columns().map((c) => ({ name: c.name, decltype: c.type ?? null }));
    return {
      cols,
      rows: stmt.want_rows === false ? [] : rows.map((row) => row.map(toProto)),
      affected_row_count: RETURNING.test(sql) ? rows.length : 0,
      last_insert_rowid: null,
    };
  }
  const info = prepared.run(bound);
  return {
    cols: [],
    rows: [],
    affected_row_count: Number(info.changes),
    last_insert_rowid: String(info.lastInsertRowid),
  };
}

/** Literals and comments removed: what is left shows whether a text holds more than one statement. */
const LITERALS = /'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|\/\*[\s\S]*?\*\//g;

type Prepared = ReturnType<Conn['prepare']>;

/** Statements prepared on each connection, by SQL text: sqld keeps them too, and parsing is most of a small statement's cost. */
const preparedOn = new WeakMap<Conn, Map<string, Prepared>>();
const PREPARED_MAX = 256;

function prepare(conn: Conn, sql: string): Prepared {
  let cache = preparedOn.get(conn);
  if (!cache) {
    cache = new Map();
    preparedOn.set(conn, cache);
  }
  let prepared = cache.get(sql);
  if (prepared === undefined) {
    prepared = prepareOnce(conn, sql);
    if (cache.size >= PREPARED_MAX) cache.clear();
    cache.set(sql, prepared);
  }
  return prepared;
}

function prepareOnce(conn: Conn, sql: string): Prepared {
  // libsql ignores whatever follows the first statement; sqld refuses it.
  const bare = sql.replace(LITERALS, '');
  // A trigger's body holds statements of its own, between BEGIN and its last END.
  const outer = /^\s*CREATE\s+(TEMP\s+|TEMPORARY\s+)?TRIGGER\b/i.test(bare)
    ? bare.replace(/\bBEGIN\b[\s\S]*\bEND\b/i, '')
    : bare;
  if (/;\s*\S/.test(outer)) {
    throw new StmtError('SQL string contains more than one statement', 'SQL_MANY_STATEMENTS');
  }
  try {
    return conn.prepare(sql);
  } catch (error) {
    const message = String((error as Error).message);
    if (/more than one statement/i.test(message)) {
      throw new StmtError('SQL string contains more than one statement', 'SQL_MANY_STATEMENTS');
    }
    throw error;
  }
}

function describe(conn: Conn, sql: string): Json {
  const prepared = prepare(conn, sql);
  const params = [...sql.replace(/'(?:[^']|'')*'/g, '').matchAll(/\?(\d*)|([:@$][A-Za-z_]\w*)/g)].map((m) => ({
    name: m[2] ?? null,
  }));
  return {
    params,
    cols: prepared.reader ? prepared.columns().map((c) => ({ name: c.name, decltype: c.type ?? null })) : [],
    is_explain: /^\s*EXPLAIN\b/i.test(sql),
    is_readonly: prepared.reader && !RETURNING.test(sql),
  };
}

function fromProto(value: Json): Value {
  switch (value?.type) {
    case 'null':
      return null;
    case 'integer':
      return BigInt(String(value.value));
    case 'float':
      return Number(value.value);
    case 'text':
      return String(value.value);
    case 'blob':
      return Buffer.from(String(value.base64), 'base64');
    default:
      throw new ProtocolError(`unknown value type ${JSON.stringify(value?.type)}`);
  }
}

function toProto(value: Value): Json {
  if (value === null) return { type: 'null' };
  if (typeof value === 'bigint') return { type: 'integer', value: value.toString() };
  if (typeof value === 'number') return { type: 'float', value };
  if (typeof value === 'string') return { type: 'text', value };
  return { type: 'blob', base64: Buffer.from(value).toString('base64') };
}

/** sqld's statement errors: the SQLite base code, a parse error of its own, or what was thrown already. */
function toStmtError(error: unknown): StmtError {
  if (error instanceof StmtError) return error;
  const e = error as { rawCode?: unknown; message?: string };
  const message = e?.message ?? String(error);
  if (typeof e?.rawCode === 'number') {
    if (/syntax error|incomplete input|unrecognized token/.test(message)) {
      return new StmtError(`SQL string could not be parsed: ${message}`, 'SQL_PARSE_ERROR');
    }
    return new StmtError(`SQLite error: ${message}`, BASE_CODES[e.rawCode & 0xff] ?? 'SQLITE_UNKNOWN');
  }
  return new StmtError(`Arguments do not match SQL parameters: ${message}`, 'ARGS_INVALID');
}

function errorResult(message: string, code: string): Json {
  return { type: 'error', error: { message, code } };
}

/** Every SQL text a pipeline body carries, in order. */
function stepsOf(body: Json): number {
  let n = 0;
  for (const r of (body.requests as Json[] | undefined) ?? []) {
    if (r.type === 'execute') n++;
    n += (((r.batch as Json | undefined)?.steps as Json[] | undefined) ?? []).length;
  }
  return n;
}

function sqlOf(body: Json): string[] {
  const out: string[] = [];
  for (const r of (body.requests as Json[] | undefined) ?? []) {
    if (typeof r.sql === 'string') out.push(r.sql);
    const stmt = r.stmt as Json | undefined;
    if (typeof stmt?.sql === 'string') out.push(stmt.sql);
    for (const step of ((r.batch as Json | undefined)?.steps as Json[] | undefined) ?? []) {
      const sql = (step.stmt as Json | undefined)?.sql;
      if (typeof sql === 'string') out.push(sql);
    }
  }
  return out;
}

function firstWords(sql: string): string {
  return sql
    .trim()
    .replace(/[`"]/g, '')
    .split(/[\s(]+/)
    .slice(0, 3)
    .join(' ');
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      data += chunk;
    });
    req.on('end', () => resolve(data));
    req.on('error', reject);
  });
}

function parseJson(text: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch (error) {
    throw new ProtocolError(`Could not deserialize JSON request body: ${(error as Error).message}`);
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain' });
  res.end(text);
}

/** Starts a server over `dir` on a free port (or the given one). */
export async function startHranaServer(opts: HranaServerOptions): Promise<HranaTestServer> {
  const server = new HranaTestServer(opts);
  await server.start();
  return server;
}
