import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@libsql/client';
import { and, desc, eq, isNotNull, isNull } from 'drizzle-orm';
import { drizzle, type LibSQLDatabase } from 'drizzle-orm/libsql';
import { migrate } from 'drizzle-orm/libsql/migrator';
import { checkWorkspaceId, TOKEN_FORMAT } from '../contract/ids.ts';
import { checkRole, type Role } from '../contract/roles.ts';
import { migrateConcurrently, openClient } from '../db/client.ts';
import { auditLog, controlSchema, tokens, workspaces } from '../db/control-schema.ts';
import { CONTROL_DB_SETTINGS, remoteUnavailable } from '../db/remote-failure.ts';
import type { Access } from './access.ts';
import { checkControlDatabase, claimControlDatabase } from './control-file.ts';
import { assertInsideDataDir, DataDirRefusal } from './data-dir.ts';

const CONTROL_MIGRATIONS = fileURLToPath(new URL('../../drizzle/control', import.meta.url));

export interface TokenInfo {
  id: string;
  workspace: string;
  role: Role;
  label: string | null;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

export interface AuditEntry {
  tokenId: string | null;
  workspace: string;
  action: string;
  details: Record<string, unknown>;
}

/** How often a token's last-used time is written at most. */
const LAST_USED_EVERY_MS = 60_000;
/** How long the mode is remembered: a token created or reset by the CLI shows within this. */
const MODE_CACHE_MS = 1_000;

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

export interface ControlLocation {
  dataDir: string;
  controlDbUrl: string | null;
  dbAuthToken: string | null;
}

/**
 * The server's control database: which tokens exist, what they may do, and the audit
 * log of privileged calls. Shared by the server and the CLI (another process may
 * create or revoke tokens while the server runs; every check reads the database).
 */
export class ControlStore {
  readonly #client: Client;
  readonly #db: LibSQLDatabase<typeof controlSchema>;
  readonly #clock: () => number;
  readonly #lastUsedWritten = new Map<string, number>();
  #tokensExist: { value: boolean; at: number } | null = null;
  #tokenMode: { value: boolean; at: number } | null = null;
  #modeRead: Promise<boolean> | null = null;
  #writes: Promise<unknown> = Promise.resolve();

  private constructor(client: Client, clock: () => number) {
    this.#client = client;
    this.#db = drizzle(client, { schema: controlSchema });
    this.#clock = clock;
  }

  static async open(loc: ControlLocation, clock: () => number = Date.now): Promise<ControlStore> {
    const url = loc.controlDbUrl ?? `file:${join(loc.dataDir, '_control.db')}`;
    const local = url.startsWith('file:');
    const path = url.slice('file:'.length);
    if (local && !loc.controlDbUrl) assertInsideDataDir(loc.dataDir, path);
    const client = await openClient({ url, authToken: loc.dbAuthToken ?? undefined, local });
    const store = new ControlStore(client, clock);
    try {
      // Another program's database is refused before anything is written to it.
      await checkControlDatabase(client, local ? path : 'SPHERE_CONTROL_DB_URL', local);
      await migrateConcurrently(() => migrate(store.#db, { migrationsFolder: CONTROL_MIGRATIONS }));
      if (local) await claimControlDatabase(client);
    } catch (error) {
      client.close();
      throw local || error instanceof DataDirRefusal ? error : remoteUnavailable(url, error, CONTROL_DB_SETTINGS);
    }
    return store;
  }

  close(): void {
    this.#client.close();
  }

  /** Control writes are few; one at a time keeps them from contending with each other. */
  #write<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.#writes.then(fn, fn);
    this.#writes = next.catch(() => {});
    return next;
  }

  /** Issues a token for a workspace and role; the token is returned once and only its hash is kept. */
  async createToken(
    workspace: string,
    role: Role,
    label: string | null = null,
  ): Promise<{ id: string; token: string }> {
    checkWorkspaceId(workspace);
    checkRole(role);
    const id = randomBytes(8).toString('hex');
    const token = `ms_${id}_${randomBytes(32).toString('base64url')}`;
    const now = this.#clock();
    await this.#write(async () => {
      await this.#db.insert(workspaces).values({ id: workspace, createdAt: now }).onConflictDoNothing();
      await this.#db.insert(tokens).values({ id, hash: sha256(token), workspace, role, label, createdAt: now });
    });
    this.#tokensExist = null;
    this.#tokenMode = { value: true, at: now };
    return { id, token };
  }

  async listTokens(): Promise<TokenInfo[]> {
    const rows = await this.#db.select().from(tokens).orderBy(desc(tokens.createdAt));
    return rows.map(({ hash: _hash, ...info }) => ({ ...info, role: info.role as Role }));
  }

  /** Revokes a token; false when no such live token exists. */
  async revokeToken(id: string): Promise<boolean> {
    const rows = await this.#write(() =>
      this.#db
        .update(tokens)
        .set({ revokedAt: this.#clock() })
        .where(and(eq(tokens.id, id), isNull(tokens.revokedAt)))
        .returning({ id: tokens.id }),
    );
    this.#tokensExist = null;
    return rows.length > 0;
  }

  /** True when at least one unrevoked token exists (then every request needs one). */
  async tokensExist(): Promise<boolean> {
    const now = this.#clock();
    if (this.#tokensExist && now - this.#tokensExist.at < MODE_CACHE_MS) return this.#tokensExist.value;
    const [row] = await this.#db.select({ id: tokens.id }).from(tokens).where(isNull(tokens.revokedAt)).limit(1);
    this.#tokensExist = { value: row !== undefined, at: now };
    return row !== undefined;
  }

  /**
   * True once any token has been created, revoked ones included: from then on every
   * request needs a token. Revoking the last token never opens the server again; only
   * `resetToOpen` (an operator's deliberate step) does.
   */
  async tokenMode(): Promise<boolean> {
    const now = this.#clock();
    if (this.#tokenMode && now - this.#tokenMode.at < MODE_CACHE_MS) return this.#tokenMode.value;
    // Every open socket and stream asks each second: one read answers all who ask meanwhile.
    this.#modeRead ??= (async () => {
      try {
        const [row] = await this.#db.select({ id: tokens.id }).from(tokens).limit(1);
        // A token created meanwhile (here) has already set the newer answer.
        if (!this.#tokenMode || this.#tokenMode.at < now) this.#tokenMode = { value: row !== undefined, at: now };
        return this.#tokenMode.value;
      } finally {
        this.#modeRead = null;
      }
    })();
    return this.#modeRead;
  }

  /**
   * Returns the server to open mode by deleting every revoked token. Refuses (returns the
   * count of live tokens) while any token is unrevoked, so no credential in use is dropped.
   */
  async resetToOpen(): Promise<{ live: number; removed: number }> {
    return this.#write(async () => {
      const live = await this.#db.select({ id: tokens.id }).from(tokens).where(isNull(tokens.revokedAt));
      if (live.length > 0) return { live: live.length, removed: 0 };
      const removed = await this.#db.delete(tokens).where(isNotNull(tokens.revokedAt)).returning({ id: tokens.id });
      this.#tokenMode = null;
      this.#tokensExist = null;
      return { live: 0, removed: removed.length };
    });
  }

  /** The access a bearer token grants, or null when it is unknown, malformed or revoked. */
  async verify(token: string): Promise<Access | null> {
    const m = TOKEN_FORMAT.exec(token);
    if (!m?.[1]) return null;
    const [row] = await this.#db.select().from(tokens).where(eq(tokens.id, m[1])).limit(1);
    if (!row || row.revokedAt !== null) return null;
    const given = Buffer.from(sha256(token), 'hex');
    const stored = Buffer.from(row.hash, 'hex');
    if (given.length !== stored.length || !timingSafeEqual(given, stored)) return null;
    this.#touch(row.id);
    return { workspaceId: row.workspace, role: row.role as Role, tokenId: row.id };
  }

  /** Records last use, at most once a minute per token, without holding up the request. */
  #touch(id: string): void {
    const now = this.#clock();
    if (now - (this.#lastUsedWritten.get(id) ?? 0) < LAST_USED_EVERY_MS) return;
    this.#lastUsedWritten.set(id, now);
    void this.#write(() => this.#db.update(tokens).set({ lastUsedAt: now }).where(eq(tokens.id, id))).catch(() => {});
  }

  async audit(entry: AuditEntry): Promise<void> {
    await this.#write(() =>
      this.#db.insert(auditLog).values({
        at: this.#clock(),
        tokenId: entry.tokenId,
        workspace: entry.workspace,
        action: entry.action,
        details: JSON.stringify(entry.details),
      }),
    );
  }
}
