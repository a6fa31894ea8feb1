import { badInput } from './errors.ts';

/**
 * Opaque page cursors. A cursor is base64url of a JSON array whose first element names the
 * list (and order) it belongs to, followed by the position of one item in that order: a
 * keyset position, not an offset, so items added or removed before it do not shift a page.
 * Clients must treat it as opaque; its layout may change.
 */
export type CursorPart = string | number | null;

export function encodeCursor(kind: string, position: readonly CursorPart[]): string {
  return Buffer.from(JSON.stringify([kind, ...position]), 'utf8').toString('base64url');
}

/**
 * The position in `cursor`, which must be a cursor of `kind` whose position has the given
 * shape ('string', 'integer', 'number', or 'integer?' for an integer or null), or BAD_USER_INPUT.
 */
export function decodeCursor(
  cursor: string,
  kind: string,
  shape: readonly ('string' | 'integer' | 'number' | 'integer?')[],
  field: string,
): CursorPart[] {
  let parsed: unknown;
  try {
    if (!/^[A-Za-z0-9_-]*$/.test(cursor) || cursor.length > 4_096) throw new Error('not base64url');
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw badInput(`${field} is not a cursor this server issued`, field);
  }
  if (!Array.isArray(parsed) || typeof parsed[0] !== 'string') {
    throw badInput(`${field} is not a cursor this server issued`, field);
  }
  if (parsed[0] !== kind) {
    throw badInput(`${field} is a cursor of another list or order; start again without it`, field);
  }
  const position = parsed.slice(1) as unknown[];
  const fits = (v: unknown, s: (typeof shape)[number]) =>
    s === 'string'
      ? typeof v === 'string'
      : s === 'number'
        ? typeof v === 'number' && Number.isFinite(v)
        : s === 'integer?' && v === null
          ? true
          : Number.isSafeInteger(v);
  if (position.length !== shape.length || !position.every((v, i) => fits(v, shape[i] ?? 'string'))) {
    throw badInput(`${field} is not a cursor this server issued`, field);
  }
  return position as CursorPart[];
}
