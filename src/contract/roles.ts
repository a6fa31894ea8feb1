import { DomainError } from './errors.ts';

/** The roles a token can carry. */
export const ROLES = ['agent', 'reader', 'maintainer'] as const;
export type Role = (typeof ROLES)[number];

/** What an operation needs. */
export type Capability = 'read' | 'write' | 'maintain';

/**
 * What each role may do. `open` is loopback open mode, where every operation is allowed;
 * `maintainer` is narrow on purpose (runStalenessPass only).
 */
export const ROLE_CAPABILITIES: Record<Role | 'open', ReadonlySet<Capability>> = {
  open: new Set(['read', 'write', 'maintain']),
  agent: new Set(['read', 'write']),
  reader: new Set(['read']),
  maintainer: new Set(['maintain']),
};

/** A role named on the command line or in a file, or BAD_USER_INPUT listing the roles. */
export function checkRole(role: unknown): Role {
  if (typeof role !== 'string' || !(ROLES as readonly string[]).includes(role)) {
    throw new DomainError('BAD_USER_INPUT', `invalid role ${JSON.stringify(role)}: use ${ROLES.join(', ')}`);
  }
  return role as Role;
}
