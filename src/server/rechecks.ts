import type { Access } from '../workspaces/access.ts';
import type { Gatekeeper } from './context.ts';

/**
 * Access rechecks shared by every long-lived stream and socket of one key: one check per
 * key per interval, however many streams hold it. A token with 3,000 open streams costs
 * one control-database read a second, not 3,000.
 */
export class Rechecks {
  readonly #everyMs: number;
  readonly #watches = new Map<string, Watch>();

  constructor(everyMs: number) {
    this.#everyMs = everyMs;
  }

  /**
   * Calls `onDenied` once `check` answers false. Every watcher of `key` must pass an
   * equivalent `check` (the first one given is used). Returns the function that stops
   * watching; the key's timer stops with its last watcher.
   */
  watch(key: string, check: () => Promise<boolean>, onDenied: () => void): () => void {
    let watch = this.#watches.get(key);
    if (!watch) {
      const created: Watch = { check, denied: new Set(), running: false, timer: null as unknown as NodeJS.Timeout };
      created.timer = setInterval(() => this.#tick(key, created), this.#everyMs);
      created.timer.unref();
      this.#watches.set(key, created);
      watch = created;
    }
    const entry = watch;
    const listener = () => onDenied();
    entry.denied.add(listener);
    return () => {
      entry.denied.delete(listener);
      if (entry.denied.size === 0) this.#end(key, entry);
    };
  }

  /** Keys watched now (for tests and metrics). */
  get keys(): number {
    return this.#watches.size;
  }

  #tick(key: string, watch: Watch): void {
    // A slow control database must not pile checks up behind each other.
    if (watch.running) return;
    watch.running = true;
    watch.check().then(
      (allowed) => {
        watch.running = false;
        if (allowed) return;
        this.#end(key, watch);
        for (const denied of [...watch.denied]) denied();
        watch.denied.clear();
      },
      () => {
        // An unreadable control database ends nothing: the next tick asks again.
        watch.running = false;
      },
    );
  }

  #end(key: string, watch: Watch): void {
    clearInterval(watch.timer);
    if (this.#watches.get(key) === watch) this.#watches.delete(key);
  }
}

interface Watch {
  check: () => Promise<boolean>;
  denied: Set<() => void>;
  running: boolean;
  timer: NodeJS.Timeout;
}

/** Why a stream's or socket's access ended: its token was revoked, or the server left open mode. */
export const TOKEN_REVOKED = 'the bearer token was revoked';
export const TOKENS_NOW_REQUIRED = 'the server now requires a bearer token: a token was created';

/**
 * Watches what lets a stream or socket go on: its token while it is not revoked, or,
 * without a token, the server staying in open mode (no anonymous reader keeps a feed once
 * the first token is created). `onDenied` gets the reason; the result stops watching.
 */
export function watchAccess(
  rechecks: Rechecks,
  gate: Pick<Gatekeeper, 'stillValid' | 'tokenMode'>,
  access: Access,
  token: string | undefined,
  onDenied: (reason: string) => void,
): () => void {
  if (access.tokenId) {
    const check = token ? () => gate.stillValid(access, token) : async () => false;
    return rechecks.watch(`token:${access.tokenId}`, check, () => onDenied(TOKEN_REVOKED));
  }
  return rechecks.watch(
    'open',
    async () => !(await gate.tokenMode()),
    () => onDenied(TOKENS_NOW_REQUIRED),
  );
}
