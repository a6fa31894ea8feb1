import { WORKSPACE_ID } from '../db/client.ts';
import { DomainError } from '../memory/errors.ts';

/** Who is calling: the workspace they act in and what they may do there. */
export interface Access {
  workspaceId: string;
  /** `open` is loopback open mode, where every operation is allowed. */
  role: 'open' | 'agent' | 'reader' | 'maintainer';
  tokenId: string | null;
}

export type Capability = 'read' | 'write' | 'maintain';

const ROLE_CAPABILITIES: Record<Access['role'], ReadonlySet<Capability>> = {
  open: new Set(['read', 'write', 'maintain']),
  agent: new Set(['read', 'write']),
  reader: new Set(['read']),
  maintainer: new Set(['maintain']),
};

export const DEFAULT_WORKSPACE = 'default';

/** Throws FORBIDDEN unless the caller's role grants the capability. */
export function assertCan(access: Access, capability: Capability): void {
  if (!ROLE_CAPABILITIES[access.role].has(capability)) {
    throw new DomainError('FORBIDDEN', `the ${access.role} role may not ${capability}`);
  }
}

/** A workspace id from a header or connection parameter, validated; absent means `default`. */
export function workspaceFromRequest(raw: unknown): string {
  if (raw == null || raw === '') return DEFAULT_WORKSPACE;
  if (typeof raw !== 'string' || !WORKSPACE_ID.test(raw)) {
    throw new DomainError('BAD_USER_INPUT', `invalid workspace id: it must match ${WORKSPACE_ID.source}`);
  }
  return raw;
}

/** Open mode: the workspace comes from the request and every operation is allowed. */
export function openAccess(workspaceHint: unknown): Access {
  return { workspaceId: workspaceFromRequest(workspaceHint), role: 'open', tokenId: null };
}
