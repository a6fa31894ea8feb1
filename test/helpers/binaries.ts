import { execFileSync } from 'node:child_process';

/**
 * Finds a system binary a test needs. On a developer's machine a missing binary skips the
 * test with a printed reason; in CI (CI=true) it is a failure, since .ci/run installs it.
 */
export function requireBinary(name: string): { available: boolean; reason: string } {
  try {
    execFileSync('which', [name], { stdio: 'ignore' });
    return { available: true, reason: '' };
  } catch {
    const reason = `${name} is not installed (apt-get install -y ${name === 'redis-server' ? 'redis-server' : name})`;
    if (process.env.CI === 'true') throw new Error(`${reason}; CI must install it`);
    console.warn(`skipping: ${reason}`);
    return { available: false, reason };
  }
}
