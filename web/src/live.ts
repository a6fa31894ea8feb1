import type { CombinedError } from '@urql/core';
import { type Client, createClient } from 'graphql-ws/client';
import { onEnd, pipe, subscribe } from 'wonka';
import { type Api, ApiError, type DocumentSender, GRAPHQL_PATH } from './api.ts';
import { EntryDocument, FeedEventsDocument, type FeedEventsSubscription, LastEventSeqDocument } from './documents.ts';
import type { MemoryEvent } from './model.ts';
import { type Session, sessionConnectionParams } from './session.ts';

export type ConnectionState = 'connecting' | 'live' | 'reconnecting' | 'unauthorized' | 'forbidden' | 'stopped';

/** How many past events the feed shows when it opens. */
const BACKLOG = 50;
/** How many events the feed keeps in memory (live ones and older ones loaded on request). */
const KEEP = 5_000;
/** How many entry names the feed reads from the server at once. */
const LOOKUPS_AT_ONCE = 2;
/** How many older events one "load older" asks for. */
export const OLDER_PAGE = 200;

/** Randomised exponential backoff: 250 ms, 500 ms, 1 s, … capped at 5 s. */
async function backoff(retries: number): Promise<void> {
  const ms = Math.min(5_000, 250 * 2 ** retries) * (0.75 + Math.random() / 2);
  await new Promise((resolve) => setTimeout(resolve, ms));
}

const codeOf = (e: { extensions?: { code?: unknown } }) => e.extensions?.code as string | undefined;

/** The first UNAUTHENTICATED or FORBIDDEN error among a subscription's errors, as an ApiError. */
function accessError(error: CombinedError): ApiError | null {
  const found = error.graphQLErrors.find((e) => codeOf(e) === 'UNAUTHENTICATED' || codeOf(e) === 'FORBIDDEN');
  return found ? new ApiError(found.message, codeOf(found)) : null;
}

/**
 * Runs a FeedEvents subscription through the urql client (so its entries and edges land in the
 * normalized cache every view reads), until the returned function is called.
 */
function feedEvents(
  api: Api,
  sinceSeq: number,
  next: (result: { data?: FeedEventsSubscription; error?: CombinedError }) => void,
  end: () => void = () => {},
): () => void {
  const source = api.client.subscription<FeedEventsSubscription>(FeedEventsDocument.text, { sinceSeq });
  return pipe(source, onEnd(end), subscribe(next)).unsubscribe;
}

/**
 * The workspace's event stream, kept across disconnects: every event is seen once, in seq order.
 * After a reconnect it resubscribes with `events(sinceSeq: last seen)`, so events committed while
 * the socket was down are replayed by the server before live ones.
 */
export class LiveEvents {
  /** Newest first. */
  readonly events: MemoryEvent[] = [];
  state: ConnectionState = 'connecting';
  /**
   * The workspace the server says this session works in: in token mode the token names it, so
   * the local setting may say otherwise. Null until the server has answered.
   */
  workspace: string | null = null;
  /** Why the dashboard sees nothing, when the server refused it (UNAUTHENTICATED or FORBIDDEN). */
  problem: ApiError | null = null;
  private lastSeq = 0;
  /** Events up to this seq had been committed before the dashboard opened. */
  private headAtStart = 0;
  /** Content of entries seen in events, to name the ends of edges. */
  private readonly contents = new Map<string, string>();
  private readonly lookups = new Map<string, Promise<string | undefined>>();
  /** Name look-ups run a few at a time, so they never hold up the event stream's replay. */
  private lookupsRunning = 0;
  private readonly lookupQueue: (() => void)[] = [];
  private client: Client | null = null;
  private unsubscribe: (() => void) | null = null;
  private readonly eventListeners = new Set<(event: MemoryEvent) => void>();
  private readonly stateListeners = new Set<(state: ConnectionState) => void>();

  constructor(
    private readonly api: Api,
    private readonly sender: DocumentSender,
    private readonly session: Session,
    private readonly onUnauthenticated: () => void,
  ) {}

  /** Loads where the log stands, then connects; the last BACKLOG events are replayed into the feed. */
  async start(): Promise<void> {
    this.setState('connecting');
    try {
      const head = await this.api.gql.fresh(LastEventSeqDocument);
      this.headAtStart = head.lastEventSeq;
      this.workspace = head.stats.workspace;
      this.lastSeq = Math.max(0, this.headAtStart - BACKLOG);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'UNAUTHENTICATED' || code === 'FORBIDDEN') {
        // A socket would be refused the same way; the views say why instead of showing nothing.
        this.refused(error as ApiError, false);
        return;
      }
      // Unreachable for now: the socket's retries take it from here, from the start of the log's tail.
    }
    if (this.state === 'stopped') return;
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${GRAPHQL_PATH}`;
    this.client = createClient({
      url,
      lazy: false,
      retryAttempts: Number.POSITIVE_INFINITY,
      shouldRetry: () => true,
      retryWait: backoff,
      keepAlive: 10_000,
      connectionParams: () => sessionConnectionParams(this.session),
      on: {
        connecting: (retrying) => this.setState(retrying ? 'reconnecting' : 'connecting'),
        connected: () => {
          this.api.socket = this.client;
          this.setState('live');
          this.subscribe();
        },
        closed: (event) => {
          // The old subscription must not be retried with its stale sinceSeq: drop it and
          // subscribe afresh from the last seen seq once connected again.
          this.unsubscribe?.();
          this.unsubscribe = null;
          if (this.state === 'stopped') return;
          const code = (event as { code?: number } | undefined)?.code;
          if (code === 4401 || code === 4403) {
            this.refused(
              new ApiError('The server refused the live connection: a valid token is needed.', 'UNAUTHENTICATED'),
            );
          } else {
            this.setState('reconnecting');
          }
        },
      },
    });
  }

  stop(): void {
    this.setState('stopped');
    this.unsubscribe?.();
    this.unsubscribe = null;
    void this.client?.dispose();
    this.client = null;
    this.api.socket = null;
  }

  /** The smallest seq the feed holds, or null before any event. */
  oldestSeq(): number | null {
    return this.events.at(-1)?.seq ?? null;
  }

  /**
   * Loads up to OLDER_PAGE events before the oldest one shown, from the server's log: the same
   * subscription replays from an earlier seq and is closed once it reaches what is shown.
   * Resolves the events added, oldest last; none once the first event is shown.
   */
  loadOlder(): Promise<MemoryEvent[]> {
    const oldest = this.oldestSeq();
    const client = this.client;
    if (oldest === null || oldest <= 1 || !client) return Promise.resolve([]);
    const from = Math.max(0, oldest - 1 - OLDER_PAGE);
    return new Promise((resolve, reject) => {
      const found: MemoryEvent[] = [];
      let stop: (() => void) | null = null;
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        stop?.();
        found.sort((a, b) => b.seq - a.seq);
        const room = Math.max(0, KEEP - this.events.length);
        const kept = found.slice(0, room);
        this.events.push(...kept);
        for (const event of kept) if (event.entry) this.remember(event.entry.id, event.entry.content);
        resolve(kept);
      };
      stop = feedEvents(
        this.api,
        from,
        (result) => {
          if (result.error) {
            if (!done) {
              done = true;
              reject(accessError(result.error) ?? new ApiError('The older events could not be read.', undefined));
            }
            return;
          }
          const event = result.data?.events;
          if (!event) return;
          if (event.seq >= oldest) finish();
          else found.push(event);
        },
        finish,
      );
      if (done) stop();
    });
  }

  /** Whether the event was already in the log when the dashboard opened (so it is not news). */
  isBacklog(event: MemoryEvent): boolean {
    return event.seq <= this.headAtStart;
  }

  /** The content of an entry the feed has seen, if any. */
  contentOf(id: string): string | undefined {
    return this.contents.get(id);
  }

  private lookupSlot(): Promise<void> {
    if (this.lookupsRunning < LOOKUPS_AT_ONCE) {
      this.lookupsRunning++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.lookupQueue.push(resolve));
  }

  private releaseSlot(): void {
    const next = this.lookupQueue.shift();
    if (next) next();
    else this.lookupsRunning--;
  }

  /** Remembers an entry's content, e.g. read by a page, so the feed can name it (even once forgotten). */
  remember(id: string, content: string): void {
    if (this.contents.size >= KEEP * 4 && !this.contents.has(id)) {
      const oldest = this.contents.keys().next().value;
      if (oldest !== undefined) this.contents.delete(oldest);
    }
    this.contents.set(id, content);
  }

  /**
   * The content of an entry, read from the server when the feed has not seen it; undefined when
   * the entry is gone (or cannot be read). One read per id at a time.
   */
  lookUp(id: string): Promise<string | undefined> {
    const known = this.contents.get(id);
    if (known !== undefined) return Promise.resolve(known);
    let pending = this.lookups.get(id);
    if (!pending) {
      pending = this.lookupSlot()
        .then(() => this.api.gql(EntryDocument, { id }))
        .finally(() => this.releaseSlot())
        .then(({ entry }) => {
          if (entry) this.remember(id, entry.content);
          return entry?.content;
        })
        .catch(() => undefined)
        .finally(() => this.lookups.delete(id));
      this.lookups.set(id, pending);
    }
    return pending;
  }

  onEvent(listener: (event: MemoryEvent) => void, signal: AbortSignal): void {
    this.eventListeners.add(listener);
    signal.addEventListener('abort', () => this.eventListeners.delete(listener));
  }

  onState(listener: (state: ConnectionState) => void, signal?: AbortSignal): void {
    this.stateListeners.add(listener);
    signal?.addEventListener('abort', () => this.stateListeners.delete(listener));
  }

  private subscribe(): void {
    if (!this.client) return;
    this.unsubscribe?.();
    this.unsubscribe = feedEvents(this.api, this.lastSeq, (result) => {
      if (result.error) this.failed(result.error);
      else if (result.data?.events) this.receive(result.data.events);
    });
  }

  private failed(error: CombinedError): void {
    const refused = accessError(error);
    if (refused) this.refused(refused);
    else if (error.graphQLErrors.some((e) => this.sender.switchesToHash(codeOf(e)))) this.subscribe();
    else console.warn('event subscription failed', error.message);
  }

  /** `notify`: whether to ask for a token (the HTTP client has already asked when it saw the 401). */
  private refused(error: ApiError, notify = true): void {
    this.problem = error;
    const unauthenticated = error.code === 'UNAUTHENTICATED';
    this.setState(unauthenticated ? 'unauthorized' : 'forbidden');
    if (unauthenticated && notify) this.onUnauthenticated();
  }

  private receive(event: MemoryEvent): void {
    // A replay after a reconnect may overlap what was already shown; seq says which is new.
    if (event.seq <= this.lastSeq) return;
    this.lastSeq = Math.max(this.lastSeq, event.seq);
    if (event.entry) this.remember(event.entry.id, event.entry.content);
    this.events.unshift(event);
    if (this.events.length > KEEP) this.events.length = KEEP;
    for (const listener of this.eventListeners) listener(event);
  }

  private setState(state: ConnectionState): void {
    if (this.state === state) return;
    if (this.state === 'stopped') return;
    this.state = state;
    for (const listener of this.stateListeners) listener(state);
  }
}
