import { setImmediate as yieldToIo } from 'node:timers/promises';
import type { ImpactConfig } from '../config.ts';
import { IMPACT_INDEX, type ImpactShape } from '../db/impact-index.ts';
import { type ImpactUpkeep, newImpactUpkeep, upkeepImpactIndex } from '../db/impact-upkeep.ts';
import type { WorkspaceRegistry } from '../workspaces/registry.ts';
import type { Logger } from './observability.ts';

/** The impact index's shape with the operator's threshold (SPHERE_IMPACT_MIN_DOCS). */
export function impactShape(config: ImpactConfig): ImpactShape {
  return {
    frequentMinDocs: config.minDocs ?? IMPACT_INDEX.frequentMinDocs,
    frequentShare: IMPACT_INDEX.frequentShare,
    headPostings: config.headPostings ?? IMPACT_INDEX.headPostings,
  };
}

/**
 * The largest term the server lists itself. A list's SQL runs on the write thread and
 * leaves the event loop free, but that thread is every embedded workspace's: their writes
 * wait for the build, about 4–5 µs per document of the term (0.35–0.47 s at 96k on a loaded
 * 2-core machine). Larger ones get theirs from `maintain` (cron) or `reindex`.
 */
const SERVER_LIST_MAX_DOCS = 100_000;

/**
 * Once started, every `upkeepMs` (0: never), gives each open workspace's impact index lists for the words that have
 * become frequent since it was built (upkeepImpactIndex), one bounded slice at a time with
 * the event loop let go between slices, writes through the workspace's writer. Workspaces
 * go one after the other, and a pass never overlaps the next.
 */
export function impactUpkeep(
  registry: WorkspaceRegistry,
  config: ImpactConfig,
  logger: Logger,
): { start(): void; stop(): Promise<void> } {
  const shape = impactShape(config);
  const states = new Map<string, ImpactUpkeep>();
  let stopped = false;
  let pass: Promise<void> | null = null;

  const upkeep = async (id: string) => {
    const state = states.get(id) ?? newImpactUpkeep(SERVER_LIST_MAX_DOCS);
    states.set(id, state);
    const view = await registry.view(id);
    for (;;) {
      if (stopped) return;
      const step = await upkeepImpactIndex(view.db, state, (w) => view.writer.run(w), shape);
      if (step.did === 'idle') return;
      if (step.did === 'scan' && step.done && step.tooLarge > 0) {
        logger.info(
          { workspace: id, words: step.tooLarge },
          'impact lists too large to build while serving: run maintain',
        );
      }
      if (step.did === 'list' && step.docs !== null)
        logger.info({ workspace: id, term: step.term, entries: step.docs }, 'impact list built');
      await yieldToIo();
    }
  };

  const runPass = async () => {
    for (const ws of await registry.opened()) {
      if (stopped) return;
      try {
        await upkeep(ws.id);
      } catch (error) {
        // Closed under it, disk full, shutting down: the next pass tries again.
        states.delete(ws.id);
        logger.warn({ workspace: ws.id, err: error }, 'impact index upkeep failed');
      }
    }
  };

  let timer: NodeJS.Timeout | null = null;
  return {
    start: () => {
      if (timer || stopped || config.upkeepMs <= 0) return;
      timer = setInterval(() => {
        pass ??= runPass().finally(() => {
          pass = null;
        });
      }, config.upkeepMs);
      timer.unref();
    },
    stop: async () => {
      stopped = true;
      if (timer) clearInterval(timer);
      await pass;
    },
  };
}
