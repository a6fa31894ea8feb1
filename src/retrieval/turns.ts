/**
 * Turns of the event loop for CPU work that follows a read. A recall's ranking takes a few
 * milliseconds of JavaScript per request, but thirty recalls of one document (or of thirty
 * requests) whose reads come back together would run their rankings back to back: every
 * `setImmediate` queued in one loop iteration runs in the same check phase, with no I/O in
 * between, so /health and every other tenant waited for all of them. Here the waiters go
 * one per loop iteration, in order, and the loop polls for I/O between any two.
 */
const waiting: (() => void)[] = [];

function grantNext(): void {
  const next = waiting.shift();
  // Scheduled from the check phase, the next grant runs in the next iteration, after I/O.
  if (waiting.length > 0) setImmediate(grantNext);
  next?.();
}

/**
 * Resolves in a turn of the event loop of its own, after the turns granted before it.
 *
 * @example
 * const rows = await readTogether(db, statements);
 * await cpuTurn(); // rank in a turn of its own
 * return rank(rows);
 */
export function cpuTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (waiting.length === 1) setImmediate(grantNext);
  });
}
