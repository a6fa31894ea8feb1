import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { type Logger, pino } from 'pino';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { EventBus } from '../events/bus.ts';
import type { Context } from '../graphql/context.ts';
import { clientCodeOf } from '../graphql/errors.ts';
import type { WorkspaceRegistry } from '../workspaces/registry.ts';

export type { Logger };

/** Structured JSON logs. Lines carry ids, workspaces, operation names and codes: never content or tokens. */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'mini-sphere' }, redact: ['authorization', 'token', 'content'] });
}

export interface Metrics {
  registry: Registry;
  requests: Counter<'operation' | 'type'>;
  errors: Counter<'operation' | 'code'>;
  recallSeconds: Histogram;
  writeSeconds: Histogram<'operation'>;
  /** Requests and upgrades refused before any GraphQL ran (Origin, Host, peer), by rule. */
  requestsRefused: Counter<'reason'>;
  /** Credentials refused: missing or invalid tokens, and wrong metrics tokens. */
  authRefused: Counter<'reason'>;
  /** Stops sampling the event loop. */
  close(): void;
}

/** The Prometheus registry behind GET /metrics. Gauges are read when scraped. */
export function createMetrics(registry: WorkspaceRegistry, bus: EventBus): Metrics {
  const reg = new Registry();
  const metrics = createCounters(reg);
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  registerStateGauges(reg, registry, bus);
  registerLoopDelay(reg, loopDelay);
  return { ...metrics, close: () => loopDelay.disable() };
}

/** What requests add to: counts and latencies. */
function createCounters(reg: Registry): Omit<Metrics, 'close'> {
  const buckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
  return {
    registry: reg,
    requests: new Counter({
      name: 'sphere_graphql_requests_total',
      help: 'GraphQL operations executed, by first root field and operation type.',
      labelNames: ['operation', 'type'],
      registers: [reg],
    }),
    errors: new Counter({
      name: 'sphere_graphql_errors_total',
      help: 'GraphQL errors returned, by first root field and extensions.code.',
      labelNames: ['operation', 'code'],
      registers: [reg],
    }),
    recallSeconds: new Histogram({
      name: 'sphere_recall_duration_seconds',
      help: 'Time to answer a recall query.',
      buckets,
      registers: [reg],
    }),
    writeSeconds: new Histogram({
      name: 'sphere_write_duration_seconds',
      help: 'Time from a mutation starting to its acknowledgement (queue + commit).',
      labelNames: ['operation'],
      buckets,
      registers: [reg],
    }),
    requestsRefused: new Counter({
      name: 'sphere_requests_refused_total',
      help: 'HTTP requests and WebSocket upgrades refused by the request guard, by rule (listen, peer, host, origin).',
      labelNames: ['reason'],
      registers: [reg],
    }),
    authRefused: new Counter({
      name: 'sphere_auth_refused_total',
      help: 'Credentials refused, by reason (missing, invalid, metrics).',
      labelNames: ['reason'],
      registers: [reg],
    }),
  };
}

/** Gauges read when scraped: write queues, workspaces, subscriptions, events, database size. */
function registerStateGauges(reg: Registry, registry: WorkspaceRegistry, bus: EventBus): void {
  new Gauge({
    name: 'sphere_write_queue_depth',
    help: 'Writes waiting for their workspace writer, over all workspaces.',
    registers: [reg],
    async collect() {
      const open = await registry.opened();
      this.set(open.reduce((n, ws) => n + ws.writer.depth, 0));
    },
  });
  new Gauge({
    name: 'sphere_workspaces_open',
    help: 'Workspace databases open now (idle ones beyond SPHERE_MAX_OPEN_WORKSPACES are closed).',
    registers: [reg],
    collect() {
      this.set(registry.openCount);
    },
  });
  new Gauge({
    name: 'sphere_events_published_total',
    help: 'Committed events published to subscribers by this instance.',
    registers: [reg],
    collect() {
      this.set(bus.published);
    },
  });
  new Gauge({
    name: 'sphere_subscriptions_open',
    help: 'Subscription streams open now.',
    registers: [reg],
    collect() {
      this.set(bus.streams.open);
    },
  });
  // One total, never a series per workspace: /metrics must not list workspace names.
  new Gauge({
    name: 'sphere_workspace_database_bytes',
    help: 'Size of the open workspace database files, WAL included, summed (embedded mode).',
    registers: [reg],
    async collect() {
      let bytes = 0;
      for (const ws of await registry.opened()) {
        const loc = registry.locate(ws.id);
        if (!loc.local) continue;
        const path = loc.url.slice('file:'.length);
        for (const suffix of ['', '-wal']) bytes += (await stat(path + suffix).catch(() => null))?.size ?? 0;
      }
      this.set(bytes);
    },
  });
}

/** How late the event loop, shared by every workspace, ran since the previous scrape. */
function registerLoopDelay(reg: Registry, loopDelay: ReturnType<typeof monitorEventLoopDelay>): void {
  new Gauge({
    name: 'sphere_event_loop_delay_seconds',
    help:
      'How late the event loop, shared by every workspace, ran a 10 ms timer since the previous scrape: ' +
      'quantile 0.5, 0.99 and 1 (the longest stall).',
    labelNames: ['quantile'],
    registers: [reg],
    collect() {
      const seen = loopDelay.count > 0;
      this.set({ quantile: '0.5' }, seen ? loopDelay.percentile(50) / 1e9 : 0);
      this.set({ quantile: '0.99' }, seen ? loopDelay.percentile(99) / 1e9 : 0);
      this.set({ quantile: '1' }, seen ? loopDelay.max / 1e9 : 0);
      // Each scrape reports the interval since the last one, so a stall shows up once, when it happened.
      loopDelay.reset();
    },
  });
}

function operationName(args: { operationName?: string | null; document: { definitions: readonly unknown[] } }) {
  if (args.operationName) return args.operationName;
  for (const def of args.document.definitions as {
    kind: string;
    name?: { value: string };
    selectionSet?: { selections: { name?: { value: string } }[] };
  }[]) {
    if (def.kind === 'OperationDefinition')
      return def.name?.value ?? def.selectionSet?.selections[0]?.name?.value ?? 'anonymous';
  }
  return 'anonymous';
}

function rootFields(document: { definitions: readonly unknown[] }): string[] {
  const op = (
    document.definitions as { kind: string; selectionSet?: { selections: { name?: { value: string } }[] } }[]
  ).find((d) => d.kind === 'OperationDefinition');
  return (op?.selectionSet?.selections ?? []).flatMap((s) => (s.name ? [s.name.value] : []));
}

/**
 * Counts an answer refused RESPONSE_TOO_LARGE once it was measured, after the operation's
 * own hooks had counted it (see useResponseCap).
 */
export function countLateRefusal(metrics: Metrics): (document: { definitions: readonly unknown[] }) => void {
  return (document) =>
    metrics.errors.inc({ operation: rootFields(document)[0] ?? 'anonymous', code: 'RESPONSE_TOO_LARGE' });
}

/** Counts and times every operation, and logs one line per operation with its request id. */
export function useObservability(logger: Logger, metrics: Metrics): Plugin<Context> {
  return {
    onExecute({ args }) {
      const started = performance.now();
      const ctx = args.contextValue as Partial<Context>;
      const op = operationName(args);
      // Metric labels take the first root field, which the schema bounds; an operation name
      // is the client's free text and would let any client grow /metrics without limit.
      const field = rootFields(args.document)[0] ?? 'anonymous';
      const type =
        (
          args.document.definitions.find((d: { kind: string }) => d.kind === 'OperationDefinition') as {
            operation?: string;
          }
        )?.operation ?? 'query';
      const requestId = randomUUID();
      return {
        onExecuteDone({ result }) {
          const seconds = (performance.now() - started) / 1000;
          metrics.requests.inc({ operation: field, type });
          if (type === 'mutation') metrics.writeSeconds.observe({ operation: field }, seconds);
          if (rootFields(args.document).includes('recall')) metrics.recallSeconds.observe(seconds);
          // Errors get their codes and are masked after this hook: count the code a client will see.
          const codes = ('errors' in result ? ((result.errors ?? []) as GraphQLError[]) : []).map(clientCodeOf);
          for (const code of codes) metrics.errors.inc({ operation: field, code });
          logger.info(
            {
              requestId,
              workspace: ctx.access?.workspaceId,
              tokenId: ctx.access?.tokenId ?? undefined,
              operation: op,
              type,
              ms: Math.round(seconds * 1000),
              errors: codes.length ? codes : undefined,
            },
            'graphql',
          );
        },
      };
    },
  };
}
