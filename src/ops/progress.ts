import cliProgress from 'cli-progress';

/** A progress display that does nothing when nobody is watching. */
export interface Progress {
  increment(by?: number): void;
  stop(): void;
}

const SILENT: Progress = { increment: () => {}, stop: () => {} };

/**
 * A progress bar on stderr when stderr is a terminal and `enabled`; silent otherwise
 * (piped, redirected, in CI), so scripts only ever see the command's own output.
 */
export function progressBar(label: string, total: number, enabled = true): Progress {
  if (!enabled || !process.stderr.isTTY || total <= 0) return SILENT;
  const bar = new cliProgress.SingleBar(
    {
      format: `${label} [{bar}] {percentage}% | {value}/{total} | eta {eta_formatted}`,
      hideCursor: true,
      etaBuffer: 200,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0);
  return {
    increment: (by = 1) => bar.increment(by),
    stop: () => bar.stop(),
  };
}
