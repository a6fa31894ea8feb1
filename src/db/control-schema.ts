import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * The server's own control database: workspaces, API tokens (hashes only) and the
 * audit log of privileged calls. Timestamps are integer ms since the epoch.
 */

export const workspaces = sqliteTable('workspaces', {
  id: text('id').primaryKey(),
  createdAt: integer('created_at').notNull(),
});

export const tokens = sqliteTable(
  'tokens',
  {
    id: text('id').primaryKey(),
    /** Hex SHA-256 of the whole token; the token itself is never stored. */
    hash: text('hash').notNull(),
    workspace: text('workspace').notNull(),
    role: text('role').notNull(),
    label: text('label'),
    createdAt: integer('created_at').notNull(),
    lastUsedAt: integer('last_used_at'),
    revokedAt: integer('revoked_at'),
  },
  (t) => [index('tokens_workspace_idx').on(t.workspace)],
);

export const auditLog = sqliteTable(
  'audit_log',
  {
    id: integer('id').primaryKey(),
    at: integer('at').notNull(),
    tokenId: text('token_id'),
    workspace: text('workspace').notNull(),
    action: text('action').notNull(),
    details: text('details').notNull(),
  },
  (t) => [index('audit_log_workspace_idx').on(t.workspace, t.at)],
);

export const controlSchema = { workspaces, tokens, auditLog };
