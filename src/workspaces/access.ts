import { DomainError } from '../contract/errors.ts';
import { checkWorkspaceId, DEFAULT_WORKSPACE } from '../contract/ids.ts';
import { type Capability, ROLE_CAPABILITIES, type Role } from '../contract/roles.ts';

/** Who is calling: the workspace they act in and what they may do there. */
export interface Access {
  workspaceId: string;
  /** `open` is loopback open mode, where every operation is allowed. */
  role: 'open' | Role;
  tokenId: string | null;
}

/** Throws FORBIDDEN unless the caller's role grants the capability. */
export function assertCan(access: Access, capability: Capability): void {
  if (!ROLE_CAPABILITIES[access.role].has(capability)) {
    throw new DomainError('FORBIDDEN', `the ${access.role} role may not ${capability}`);
  }
}

/** A workspace id from a header or connection parameter, validated; absent means `default`. */
export function workspaceFromRequest(raw: unknown): string {
  return raw == null || raw === '' ? DEFAULT_WORKSPACE : checkWorkspaceId(raw);
}

/** Open mode: the workspace comes from the request and every operation is allowed. */
export function openAccess(workspaceHint: unknown): Access {
  return { workspaceId: workspaceFromRequest(workspaceHint), role: 'open', tokenId: null };
}
