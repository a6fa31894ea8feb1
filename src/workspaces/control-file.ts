import type { Client } from '@libsql/client';
import { DataDirRefusal } from './data-dir.ts';

/**
 * The `application_id` a control database carries (SQLite stores it in the file header):
 * "MSph". Set on every control database this project creates or migrates, so a file
 * another program made is recognised before anything is written to it.
 */
export const CONTROL_APPLICATION_ID = 0x4d537068;

/** The tables of a control database: its own, drizzle's migration log, and SQLite's. */
const OWN_TABLES = new Set(['tokens', 'workspaces', 'audit_log', '__drizzle_migrations']);
const isOwn = (name: string) => OWN_TABLES.has(name) || name.startsWith('sqlite_');

/**
 * Refuses a control database that belongs to another program, before migrating into it:
 * one whose `application_id` is another's, or, for a file without one (any SQLite file, and
 * control databases made by earlier versions of this project), one that holds tables this
 * project never creates. `label` names it in the refusal.
 */
export async function checkControlDatabase(client: Client, label: string, local: boolean): Promise<void> {
  if (local) {
    const id = Number((await client.execute('PRAGMA application_id')).rows[0]?.[0] ?? 0);
    if (id === CONTROL_APPLICATION_ID) return;
    if (id !== 0) {
      throw new DataDirRefusal(
        `${label} belongs to another program (application_id ${id}); refusing to use it as the control database. ` +
          'Move it away, or point SPHERE_DATA_DIR (or SPHERE_CONTROL_DB_URL) elsewhere.',
      );
    }
  }
  const tables = await client.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')");
  const foreign = tables.rows.map((r) => String(r[0])).filter((name) => !isOwn(name));
  if (foreign.length > 0) {
    throw new DataDirRefusal(
      `${label} holds tables Mini-Sphere never creates (${foreign.slice(0, 5).join(', ')}${foreign.length > 5 ? ', …' : ''}); ` +
        'refusing to use it as the control database. Move it away, or point SPHERE_DATA_DIR (or SPHERE_CONTROL_DB_URL) elsewhere.',
    );
  }
}

/** Marks a local control database as this project's, once its schema is in place. */
export async function claimControlDatabase(client: Client): Promise<void> {
  await client.execute(`PRAGMA application_id = ${CONTROL_APPLICATION_ID}`);
}
