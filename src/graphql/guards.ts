import { DomainError } from '../contract/errors.ts';
import type { Capability } from '../contract/roles.ts';
import type { Db } from '../db/client.ts';
import type { PlannedWrite } from '../db/planned-write.ts';
import type { WriteFn } from '../db/writer.ts';
import { assertCan } from '../workspaces/access.ts';
import type { Context } from './context.ts';

/** The workspace database for a read, once the caller may read. */
export function readDb(ctx: Context): Db {
  assertCan(ctx.access, 'read');
  return ctx.workspace.db;
}

/**
 * The client a request counts against for per-client turns (heavy reads, event-log
 * replays): its token, or in open mode its workspace.
 */
export function clientOf(ctx: Context): string {
  return ctx.access.tokenId ? `token:${ctx.access.tokenId}` : `open:${ctx.access.workspaceId}`;
}

/** What a mutation may need: a client's write, or a maintainer's pass. */
export type WriteCapability = Extract<Capability, 'write' | 'maintain'>;

/**
 * Whether a mutation needing `capability` spends one of the workspace's write quota: client
 * writes do; a maintainer's pass (runStalenessPass) is not a client write, so the rate
 * limit does not apply to it. runWrite and the mutation guard both go by this.
 */
export function spendsWriteQuota(capability: Capability): boolean {
  return capability === 'write';
}

/**
 * Queues a write on the workspace's single writer, once the caller may make it (`write`
 * unless said otherwise) and, for a client write, the workspace's rate limit allows it.
 */
export function runWrite<T>(
  ctx: Context,
  fn: WriteFn<T> | PlannedWrite<T>,
  capability: WriteCapability = 'write',
): Promise<T> {
  assertCan(ctx.access, capability);
  if (spendsWriteQuota(capability) && !ctx.writeQuota.take()) {
    throw new DomainError('RATE_LIMITED', 'too many writes to this workspace; retry in a moment');
  }
  return ctx.workspace.writer.run(fn);
}

/**
 * A client write that stores more (capture, append, update, link): as runWrite, and the
 * workspace's storage quota must have room for about `grows` bytes (see writeEstimate), or
 * it is refused with QUOTA_EXCEEDED before `make` prepares it (an embedding, say) and
 * before anything is queued. Writes that store nothing new (forget, unlink, a status,
 * maintenance) go through runWrite and pass any quota.
 */
export async function runGrowingWrite<T>(
  ctx: Context,
  grows: number,
  make: () => WriteFn<T> | PlannedWrite<T> | Promise<WriteFn<T> | PlannedWrite<T>>,
): Promise<T> {
  assertCan(ctx.access, 'write');
  await ctx.storage.admit(grows);
  try {
    return await runWrite(ctx, await make());
  } finally {
    ctx.storage.wrote(grows);
  }
}

/**
 * What the mutation guard (mutation-guard.ts) reads from a root mutation field's
 * `extensions` before any field of the document runs.
 */
export interface MutationFieldExtensions {
  /** Validates the field's arguments with the domain's own check (the one its write runs), without the database. */
  checkInput?: (args: Record<string, unknown>) => void;
  /** What the caller must be allowed; `write` (the default) also spends one of the write quota. */
  capability?: WriteCapability;
}

/** Field extensions that let the mutation guard run `check` on every field before any writes. */
export function checkedFirst<A>(
  check: (args: A) => void,
  capability: WriteCapability = 'write',
): MutationFieldExtensions & Readonly<Record<string, unknown>> {
  return { checkInput: check as (args: Record<string, unknown>) => void, capability };
}
