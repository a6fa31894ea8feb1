import { isIP } from 'node:net';
import { DomainError } from '../contract/errors.ts';
import { type Access, openAccess } from './access.ts';
import type { ControlStore } from './control.ts';

/** Loopback hosts, where open mode (no tokens) is allowed. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  if (h.startsWith('::ffff:')) return isLoopback(h.slice(7));
  return isIP(h) === 4 && h.startsWith('127.');
}

export interface Credentials {
  /** The Authorization header (HTTP) or connectionParams.authorization (WebSocket). */
  authorization: unknown;
  /** x-workspace (HTTP) or connectionParams.workspace (WebSocket); used in open mode only. */
  workspace: unknown;
}

/**
 * Decides who a request is. Once any token was created (or SPHERE_AUTH=required), every
 * request needs a valid bearer token and the workspace comes from that token alone;
 * before that, loopback open mode takes the workspace from the request.
 */
export class Authenticator {
  readonly #control: ControlStore;
  readonly #authRequired: boolean;

  constructor(control: ControlStore, opts: { authRequired: boolean }) {
    this.#control = control;
    this.#authRequired = opts.authRequired;
  }

  /** True when requests need tokens: SPHERE_AUTH=required, or a token was ever created. */
  async tokenMode(): Promise<boolean> {
    return this.#authRequired || (await this.#control.tokenMode());
  }

  async authenticate(creds: Credentials): Promise<Access> {
    if (creds.authorization != null && creds.authorization !== '') {
      const m = typeof creds.authorization === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(creds.authorization) : null;
      const access = m?.[1] ? await this.#control.verify(m[1]) : null;
      if (!access) throw new DomainError('UNAUTHENTICATED', 'the bearer token is invalid or revoked');
      return access;
    }
    if (await this.tokenMode()) {
      throw new DomainError('UNAUTHENTICATED', 'a bearer token is required (Authorization: Bearer <token>)');
    }
    return openAccess(creds.workspace);
  }
}
