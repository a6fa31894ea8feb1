import type { CaptureOutcome, EdgeType, MemoryEventType, Provenance } from './enums.ts';

/** An edge as it was when the event happened (the edge may be gone since). */
export interface EdgeSnapshot {
  src: string;
  dst: string;
  type: EdgeType;
  weight: number;
  provenance: Provenance;
  metadata: Record<string, unknown> | null;
  createdAt: number;
  updatedAt: number;
}

/** What a write emits; the writer adds `seq` and `at` when it appends it to the log. */
export interface EventDraft {
  type: MemoryEventType;
  entryId?: string | null;
  outcome?: CaptureOutcome | null;
  edge?: EdgeSnapshot | null;
  data?: Record<string, unknown> | null;
}

/** One committed row of a workspace's event log. */
export interface MemoryEventRecord {
  workspace: string;
  seq: number;
  type: MemoryEventType;
  at: number;
  entryId: string | null;
  outcome: CaptureOutcome | null;
  edge: EdgeSnapshot | null;
  data: Record<string, unknown> | null;
}
