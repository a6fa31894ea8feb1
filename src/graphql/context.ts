import type { EventBus } from '../events/bus.ts';
import type { SemanticWorkspace } from '../memory/embeddings/semantic.ts';
import type { LlmBinding, LlmWorkspace } from '../memory/llm/binding.ts';
import type { Access } from '../workspaces/access.ts';
import type { WriteQuota } from '../workspaces/rate-limit.ts';
import type { WorkspaceView } from '../workspaces/registry.ts';
import type { WorkspaceStorage } from '../workspaces/storage-quota.ts';
import type { Loaders } from './loaders.ts';
import type { ReadBudget } from './read-budget.ts';

/** What every resolver gets: who is calling, their workspace, loaders and the event bus. */
export interface Context {
  access: Access;
  workspace: WorkspaceView;
  loaders: Loaders;
  /** What this operation may still read, in bytes (SPHERE_MAX_RESPONSE_BYTES); its loaders charge it too. */
  readBudget: ReadBudget;
  /** The workspace's vectors and embedder; null while SPHERE_EMBEDDINGS is off. */
  semantic: SemanticWorkspace | null;
  /** The workspace's LLM queue, and the binding; null while SPHERE_LLM is off. */
  llm: { binding: LlmBinding; workspace: LlmWorkspace } | null;
  bus: EventBus;
  /** How subscription streams behave: idle log polling (Redis mode) and the live buffer bound. */
  realtime: { pollMs: number; bufferMax: number };
  /** The real clock; recall's `asOf` never replaces it for freshness. */
  now: () => number;
  /** This operation's writes against the workspace's rate limit. */
  writeQuota: WriteQuota;
  /** The workspace's size against its storage quota (SPHERE_MAX_WORKSPACE_MB). */
  storage: WorkspaceStorage;
  /** Writes a privileged call to the control database's audit log (token id, workspace, time). */
  audit: (action: string, details: Record<string, unknown>) => Promise<void>;
}
