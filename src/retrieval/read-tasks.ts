/**
 * The reads that run whole on a reader thread (LocalClient.readTask): loaded there, each
 * reads through that thread's read connection, where the rows are, and hands back only its
 * answer, so that a read of several statements crosses between threads once.
 *
 * - `recall`: with embeddings on, it gets what the vector arm found on the request thread
 *   (see VectorArmParts). The thread keeps its own caches (stems, FTS terms), as the
 *   request thread keeps its own.
 * - `graphView`: the walk's statements (one per hop) and the reads of the edges and
 *   entries among its nodes.
 */
import { closeTaskDb, type TaskConnection, type TaskModule, taskDb } from '../db/read-task.ts';
import { type GraphViewOptions, graphViewHere } from './graph-view.ts';
import { type RecallInput, recallHere } from './pipeline.ts';
import type { VectorArmParts } from './vector.ts';

export const runTask: TaskModule['runTask'] = async (name, connection: TaskConnection, args) => {
  switch (name) {
    case 'recall': {
      const { input, now, vector } = args as { input: RecallInput; now: Date; vector: VectorArmParts | null };
      return recallHere(taskDb(connection), input, now, vector, false);
    }
    case 'graphView': {
      const { seedIds, hops, options } = args as GraphViewArgs;
      return graphViewHere(taskDb(connection), seedIds, hops, options);
    }
    default:
      throw new Error(`read-tasks has no task ${name}`);
  }
};

export const closeTask: TaskModule['closeTask'] = closeTaskDb;

/** What the graphView task is sent. */
export interface GraphViewArgs {
  seedIds: readonly string[];
  hops: number | null | undefined;
  options: GraphViewOptions;
}
