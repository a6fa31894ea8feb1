import { existsSync } from 'node:fs';
import type { Config } from '../config.ts';
import { DomainError } from '../contract/errors.ts';
import { locateWorkspace } from '../db/client.ts';
import { listLocalWorkspaces, workspaceFile } from '../ops/workspace.ts';
import { didYouMean } from './suggest.ts';

/**
 * Refuses a workspace that does not exist unless `create` is set (`--create`), before
 * anything is opened: opening a database file creates it, so a mistyped id would otherwise
 * leave a new empty workspace behind (and `check` would call it healthy). A hosted database
 * cannot be looked for without connecting to it, so it is taken as it is.
 */
export function requireWorkspace(config: Config, id: string, create: boolean | undefined): void {
  const file = workspaceFile(locateWorkspace(id, config));
  if (!file || create || existsSync(file)) return;
  const guess = didYouMean(id, listLocalWorkspaces(config), (w) => JSON.stringify(w));
  throw new DomainError(
    'NOT_FOUND',
    `workspace ${JSON.stringify(id)} does not exist in ${config.dataDir}; pass --create to create it${guess}`,
  );
}
