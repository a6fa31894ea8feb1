/**
 * How long a test may take before it counts as hung. These bound hangs; they time nothing.
 * The defaults hold on a quiet two-core machine with room to spare; on one busy with other
 * work, `TEST_TIME_SCALE=3 npm test` stretches every budget (and every readiness wait) alike.
 */
const raw = process.env.TEST_TIME_SCALE?.trim();
const scale = raw ? Number(raw) : 1;
if (!Number.isFinite(scale) || scale <= 0) {
  throw new Error(`TEST_TIME_SCALE must be a positive number, not ${JSON.stringify(raw)}`);
}

/** `ms` stretched by TEST_TIME_SCALE. */
export function budget(ms: number): number {
  return Math.round(ms * scale);
}

/** A test or hook of `npm test`, processes it starts included. */
export const TEST_BUDGET = budget(120_000);

/** A test or hook of `npm run test:slow`: crash rounds, browsers, bench-like loads. */
export const SLOW_TEST_BUDGET = budget(600_000);

/**
 * How long a child process (server, redis-server, browser) may take to become ready. Shorter
 * than the hook budget, so a process that never gets ready is killed by its starter with its
 * output in the error, not left running when the hook gives up.
 */
export const PROCESS_START_BUDGET = budget(90_000);
