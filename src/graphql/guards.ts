import type { Db } from '../db/client.ts';
import type { WriteFn } from '../db/writer.ts';
import { DomainError } from '../memory/errors.ts';
import { assertCan } from '../workspaces/access.ts';
import type { Context } from './context.ts';

/** The workspace database for a read, once the caller may read. */
export function readDb(ctx: Context): Db {
  assertCan(ctx.access, 'read');
  return ctx.workspace.db;
}

/** Queues a write on the workspace's single writer, once the caller may write. */
export function runWrite<T>(ctx: Context, fn: WriteFn<T>): Promise<T> {
  assertCan(ctx.access, 'write');
  if (!ctx.takeWriteQuota()) {
    throw new DomainError('RATE_LIMITED', 'too many writes to this workspace; retry in a moment');
  }
  return ctx.workspace.writer.run(fn);
}
