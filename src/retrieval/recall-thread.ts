/**
 * Recall on a reader thread (LocalClient.readTask): loaded there, it ranks with that
 * thread's read connection, where the rows are, and hands back only the answer. With
 * embeddings on, it gets what the vector arm found on the request thread (see
 * VectorArmParts). The thread keeps its own caches (stems, FTS terms), as the request
 * thread keeps its own.
 */
import { closeTaskDb, type TaskConnection, type TaskModule, taskDb } from '../db/read-task.ts';
import { type RecallInput, recallHere } from './pipeline.ts';
import type { VectorArmParts } from './vector.ts';

export const runTask: TaskModule['runTask'] = async (name, connection: TaskConnection, args) => {
  if (name !== 'recall') throw new Error(`recall-thread has no task ${name}`);
  const { input, now, vector } = args as { input: RecallInput; now: Date; vector: VectorArmParts | null };
  return recallHere(taskDb(connection), input, now, vector);
};

export const closeTask: TaskModule['closeTask'] = closeTaskDb;
