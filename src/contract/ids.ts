import { badInput } from './errors.ts';

/** A workspace id: its database's file or host name part, so nothing else can become a path. */
export const WORKSPACE_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** The workspace requests name when they name none (open mode). */
export const DEFAULT_WORKSPACE = 'default';

/** A valid workspace id, or BAD_USER_INPUT saying what a workspace id looks like. */
export function checkWorkspaceId(id: unknown, field = 'workspace'): string {
  if (typeof id !== 'string' || !WORKSPACE_ID.test(id)) {
    throw badInput(`invalid workspace id ${JSON.stringify(id)}: it must match ${WORKSPACE_ID.source}`, field);
  }
  return id;
}

/** `ms_<16 hex id>_<43 base64url secret>`: the id finds the token's row, the hash of the whole proves it. */
export const TOKEN_FORMAT = /^ms_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

/** The id part of a token, for logs: never the secret; "unknown" when it is not a token of ours. */
export function tokenIdOf(token: string): string {
  return TOKEN_FORMAT.exec(token)?.[1] ?? 'unknown';
}
