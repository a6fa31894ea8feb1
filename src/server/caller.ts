import type { IncomingMessage, ServerResponse } from 'node:http';
import { DomainError } from '../contract/errors.ts';
import { LIMITS } from '../contract/limits.ts';
import type { Access } from '../workspaces/access.ts';
import type { Gatekeeper } from './context.ts';
import { corsAllowed, refusalBody } from './guard.ts';

/**
 * Who sends a GraphQL request, known from its headers before its body is read: nothing is
 * parsed, validated or costed for a caller who is not yet known. A request without valid
 * credentials is answered 401 UNAUTHENTICATED at once, whatever its document; one that is
 * let through carries its access to the operation's context, so it is checked once.
 */
const callers = new WeakMap<IncomingMessage, Access>();

/** The access the request was admitted with, if it was. */
export function admittedAccess(req: IncomingMessage | undefined): Access | undefined {
  return req ? callers.get(req) : undefined;
}

/**
 * Authenticates `req` from its `Authorization` and `x-workspace` headers. True when it may
 * go on: admitted, or refused for another reason (a workspace id that is not valid, say)
 * that its operation reports with the contract's answer for it. False once answered 401.
 */
export async function admitCaller(
  gate: Gatekeeper,
  req: IncomingMessage,
  res: ServerResponse,
  corsOrigins: readonly string[],
): Promise<boolean> {
  try {
    const workspace = req.headers['x-workspace'];
    const access = await gate.authenticate(
      { authorization: req.headers.authorization, workspace: Array.isArray(workspace) ? workspace[0] : workspace },
      req.socket.remoteAddress,
    );
    callers.set(req, access);
    return true;
  } catch (error) {
    if (!(error instanceof DomainError) || error.code !== 'UNAUTHENTICATED') {
      // Another refusal is the context's to report; a control database that cannot be read too.
      if (error instanceof DomainError) return true;
      throw error;
    }
    const headers: Record<string, string> = {
      'content-type': 'application/json; charset=utf-8',
      'www-authenticate': 'Bearer',
    };
    // A page of a listed origin may read why it was refused, as from any other answer.
    const origin = req.headers.origin;
    if (corsAllowed(origin, corsOrigins)) {
      headers['access-control-allow-origin'] = origin as string;
      headers['access-control-allow-credentials'] = 'true';
      headers.vary = 'Origin';
    }
    res.writeHead(401, headers);
    res.end(refusalBody({ message: error.message, code: 'UNAUTHENTICATED' }));
    return false;
  }
}

const OPEN = new Set([0x5b, 0x7b]); // [ {
const CLOSE = new Set([0x5d, 0x7d]); // ] }

/**
 * Whether JSON text nests its arrays and objects deeper than `max`, read as text in one pass
 * before it is parsed: JSON.parse takes most of a second over a megabyte of `[[[[…`, and
 * nothing a client sends needs more than a few levels.
 */
export function jsonNestsDeeper(text: string, max: number = LIMITS.jsonDepthMax): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (OPEN.has(c)) {
      if (++depth > max) return true;
    } else if (CLOSE.has(c)) {
      depth--;
    }
  }
  return false;
}

/** What a request whose JSON nests too deep is told. */
export const TOO_DEEP = `JSON in the request nests deeper than ${LIMITS.jsonDepthMax} levels`;

/** Whether a GET request's JSON parameters (`variables`, `extensions`) nest too deep. */
export function queryNestsDeeper(url: string | undefined): boolean {
  const search = (url ?? '').split('?')[1];
  if (!search) return false;
  const params = new URLSearchParams(search);
  return ['variables', 'extensions'].some((name) => jsonNestsDeeper(params.get(name) ?? ''));
}
