import { EDGE_TYPES, type EdgeType } from './enums.ts';

/**
 * Global object ids (Relay's `Node.id`). An entry's id is its own id, unchanged, so clients
 * that already hold one keep it. Edges and revisions have no id column, so theirs is derived
 * from what makes them unique in a workspace: base64url of `Edge:` or `Revision:` followed by
 * a JSON array. Such an id never looks like an entry id the server makes (a UUID), and the
 * JSON array keeps ids apart whatever characters imported entry ids hold.
 */

/** The most ids one `nodes` call resolves. */
export const NODE_IDS_MAX = 100;

/** Longer than any id this module makes from entry ids of up to 200 characters: refused unread. */
const NODE_ID_LENGTH_MAX = 2_048;

/** What makes an edge unique: RELATES_TO is stored with src < dst, so one pair has one key. */
export interface EdgeKey {
  src: string;
  dst: string;
  type: EdgeType;
}

/** What finds a revision: its row id (an INTEGER PRIMARY KEY), with its entry so a reused row id never aliases. */
export interface RevisionKey {
  entryId: string;
  n: number;
}

export type NodeKey =
  | { kind: 'Entry'; id: string }
  | { kind: 'Edge'; key: EdgeKey }
  | { kind: 'Revision'; key: RevisionKey };

const encode = (kind: 'Edge' | 'Revision', parts: unknown[]) =>
  Buffer.from(`${kind}:${JSON.stringify(parts)}`, 'utf8').toString('base64url');

export const edgeNodeId = (edge: EdgeKey): string => encode('Edge', [edge.src, edge.dst, edge.type]);

export const revisionNodeId = (revision: RevisionKey): string => encode('Revision', [revision.entryId, revision.n]);

/** The same key as a string, for maps and loader caches. */
export const edgeKeyString = (edge: EdgeKey): string => JSON.stringify([edge.src, edge.dst, edge.type]);

const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

function decodeParts(id: string): { kind: string; parts: unknown[] } | null {
  if (!/^[A-Za-z0-9_-]+$/.test(id)) return null;
  const text = Buffer.from(id, 'base64url').toString('utf8');
  const match = /^(Edge|Revision):(\[.*\])$/s.exec(text);
  if (!match) return null;
  try {
    const parts: unknown = JSON.parse(match[2] as string);
    return Array.isArray(parts) ? { kind: match[1] as string, parts } : null;
  } catch {
    return null;
  }
}

function derivedKey(id: string): NodeKey | null {
  const decoded = decodeParts(id);
  if (!decoded) return null;
  const { kind, parts } = decoded;
  if (kind === 'Edge' && parts.length === 3) {
    const [src, dst, type] = parts;
    if (isText(src) && isText(dst) && EDGE_TYPES.includes(type as EdgeType)) {
      const key: NodeKey = { kind, key: { src, dst, type: type as EdgeType } };
      // Only the one spelling this module makes: no alias of an id through other JSON or padding.
      return edgeNodeId(key.key) === id ? key : null;
    }
  }
  if (kind === 'Revision' && parts.length === 2) {
    const [entryId, n] = parts;
    if (isText(entryId) && Number.isSafeInteger(n) && (n as number) > 0) {
      const key: NodeKey = { kind, key: { entryId, n: n as number } };
      return revisionNodeId(key.key) === id ? key : null;
    }
  }
  return null;
}

/**
 * What a global id names: an edge or a revision when it decodes as one, else an entry id.
 * Never throws: a malformed id is an entry id no entry has, or null when it is too long.
 */
export function parseNodeId(id: string): NodeKey | null {
  if (id.length === 0 || id.length > NODE_ID_LENGTH_MAX) return null;
  return derivedKey(id) ?? { kind: 'Entry', id };
}
