import type { IncomingMessage } from 'node:http';
import type { YogaInitialContext } from 'graphql-yoga';
import type { Config } from '../config.ts';
import { DomainError } from '../contract/errors.ts';
import { tokenIdOf } from '../contract/ids.ts';
import type { EventBus } from '../events/bus.ts';
import type { Context } from '../graphql/context.ts';
import { createLoaders } from '../graphql/loaders.ts';
import { ReadBudget } from '../graphql/read-budget.ts';
import type { Semantic } from '../memory/embeddings/semantic.ts';
import type { LlmBinding, LlmWorkspaceAccess } from '../memory/llm/binding.ts';
import type { Access } from '../workspaces/access.ts';
import { Authenticator, type Credentials } from '../workspaces/auth.ts';
import type { ControlStore } from '../workspaces/control.ts';
import { RateLimiter } from '../workspaces/rate-limit.ts';
import type { WorkspaceRegistry } from '../workspaces/registry.ts';
import { DEFAULT_TOKEN_WORKSPACE_MB, StorageMeter } from '../workspaces/storage-quota.ts';
import { admittedAccess } from './caller.ts';
import type { ConnectionLimits } from './connections.ts';
import type { Logger, Metrics } from './observability.ts';

/** Mutations per minute per workspace once tokens exist, unless SPHERE_RATE_LIMIT says otherwise. */
export const DEFAULT_TOKEN_RATE_LIMIT = 6_000;

/** What graphql-ws passes as the envelop's initial context, beside Yoga's. */
export type InitialContext = Partial<YogaInitialContext> & {
  connectionParams?: Readonly<Record<string, unknown>>;
  /** The node request: Yoga's and the direct path's `req`, graphql-ws's `extra.request`. */
  req?: IncomingMessage;
};

/** The token in an `Authorization: Bearer <token>` value. */
export function bearerOf(authorization: unknown): string | undefined {
  return typeof authorization === 'string' ? /^Bearer\s+(\S+)/i.exec(authorization)?.[1] : undefined;
}

function credentialsOf(initial: InitialContext): Credentials {
  if (initial.connectionParams) {
    return { authorization: initial.connectionParams.authorization, workspace: initial.connectionParams.workspace };
  }
  return {
    authorization: initial.request?.headers.get('authorization'),
    workspace: initial.request?.headers.get('x-workspace'),
  };
}

/**
 * Who is calling, for every transport: the mode (open or token, a state of the control
 * store), authentication with refused credentials logged and counted (token id or
 * "unknown", never the token), and the per-request GraphQL context.
 */
export class Gatekeeper {
  readonly #control: () => Promise<ControlStore>;
  readonly #authRequired: boolean;
  readonly #logger: Logger;
  readonly #metrics: Metrics;
  #authenticator: Promise<Authenticator> | null = null;
  #known: boolean;

  constructor(opts: {
    control: () => Promise<ControlStore>;
    authRequired: boolean;
    logger: Logger;
    metrics: Metrics;
  }) {
    this.#control = opts.control;
    this.#authRequired = opts.authRequired;
    this.#logger = opts.logger;
    this.#metrics = opts.metrics;
    this.#known = opts.authRequired;
  }

  #auth(): Promise<Authenticator> {
    this.#authenticator ??= this.#control().then((c) => new Authenticator(c, { authRequired: this.#authRequired }));
    this.#authenticator.catch(() => {
      this.#authenticator = null;
    });
    return this.#authenticator;
  }

  /** True when requests need tokens (SPHERE_AUTH=required, or a token was ever created). */
  async tokenMode(): Promise<boolean> {
    this.#known = await (await this.#auth()).tokenMode();
    return this.#known;
  }

  /**
   * The mode as last read, without waiting: every request and upgrade reads the mode
   * before anything else, so this is at most that read old.
   */
  get knownTokenMode(): boolean {
    return this.#known;
  }

  async authenticate(creds: Credentials, peer: string | undefined): Promise<Access> {
    try {
      return await (await this.#auth()).authenticate(creds);
    } catch (error) {
      if (error instanceof DomainError && error.code === 'UNAUTHENTICATED') this.refused(creds.authorization, peer);
      throw error;
    }
  }

  /** Logs and counts refused credentials; `reason` says which (a missing or invalid token, metrics). */
  refused(authorization: unknown, peer: string | undefined, reason?: string): void {
    const presented = typeof authorization === 'string' && authorization !== '';
    const why = reason ?? (presented ? 'invalid' : 'missing');
    this.#metrics.authRefused.inc({ reason: why });
    this.#logger[presented ? 'warn' : 'info'](
      { tokenId: presented ? tokenIdOf(bearerOf(authorization) ?? '') : null, peer, reason: why },
      'credentials refused',
    );
  }

  /** Whether `token` still grants `access` (a revoked token does not). */
  async stillValid(access: Access, token: string): Promise<boolean> {
    const now = await (await this.#control()).verify(token);
    return now?.tokenId === access.tokenId;
  }
}

export interface ContextDeps {
  gate: Gatekeeper;
  registry: WorkspaceRegistry;
  control: () => Promise<ControlStore>;
  bus: EventBus;
  realtime: Context['realtime'];
  clock: () => number;
  config: Pick<Config, 'rateLimit' | 'maxWorkspaceMb' | 'maxResponseBytes'>;
  /** The embedding binding, or null while off. */
  semantic: () => Semantic | null;
  /** The LLM binding, or null while off. */
  llm?: () => LlmBinding | null;
  /** Told which connections carried an authenticated request. */
  connections?: Pick<ConnectionLimits, 'authenticated'>;
}

/** Builds each operation's context: the caller's access, workspace, fresh loaders and quotas. */
export function createContextFactory(deps: ContextDeps): (initial: InitialContext) => Promise<Context> {
  const rateLimiter = new RateLimiter(deps.clock);
  const storage = new StorageMeter();
  return async (initial) => {
    // HTTP requests were authenticated before their body was read (caller.ts); sockets per operation.
    const access =
      (initial.connectionParams ? undefined : admittedAccess(initial.req)) ??
      (await deps.gate.authenticate(credentialsOf(initial), initial.req?.socket.remoteAddress));
    deps.connections?.authenticated(initial.req?.socket);
    // A view, not an open database: reads of a workspace that does not exist create nothing.
    const workspace = await deps.registry.view(access.workspaceId);
    const store = await deps.control();
    const rateLimit = deps.config.rateLimit ?? (access.role === 'open' ? 0 : DEFAULT_TOKEN_RATE_LIMIT);
    const quotaMb = deps.config.maxWorkspaceMb ?? (access.role === 'open' ? 0 : DEFAULT_TOKEN_WORKSPACE_MB);
    const readBudget = new ReadBudget(deps.config.maxResponseBytes);
    return {
      access,
      workspace,
      loaders: createLoaders(workspace.db, readBudget),
      readBudget,
      semantic: deps.semantic()?.workspace(workspace) ?? null,
      llm: llmOf(deps.llm?.() ?? null, workspace),
      bus: deps.bus,
      realtime: deps.realtime,
      now: deps.clock,
      writeQuota: rateLimiter.quota(access.workspaceId, rateLimit),
      storage: storage.workspace(workspace, quotaMb > 0 ? Math.round(quotaMb * 1024 * 1024) : null),
      audit: (action, details) =>
        store.audit({ tokenId: access.tokenId, workspace: access.workspaceId, action, details }),
    };
  };
}

/** The LLM binding with the workspace's queue, which resumes what it left on the workspace's first request. */
function llmOf(binding: LlmBinding | null, workspace: LlmWorkspaceAccess): Context['llm'] {
  return binding ? { binding, workspace: binding.workspace(workspace) } : null;
}
