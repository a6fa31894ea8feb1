import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LINTER = `${ROOT}node_modules/graphql-schema-linter/lib/cli.js`;
const RELAY_RULES = ['relay-connection-types-spec', 'relay-connection-arguments-spec', 'relay-page-info-spec'];

/** Runs graphql-schema-linter over an SDL file; its JSON report and exit status. */
async function lint(file: string): Promise<{ code: number; errors: { message: string; rule: string }[] }> {
  const args = [LINTER, '--rules', RELAY_RULES.join(','), '--format', 'json', file];
  try {
    const { stdout } = await run(process.execPath, args, { cwd: ROOT });
    return { code: 0, errors: JSON.parse(stdout).errors };
  } catch (error) {
    const e = error as { code: number; stdout: string };
    return { code: e.code, errors: JSON.parse(e.stdout || '{"errors":[]}').errors };
  }
}

describe('schema.graphql and the Relay conventions (graphql-schema-linter)', () => {
  it('passes the relay connection, connection argument and page info rules', async () => {
    const { code, errors } = await lint('schema.graphql');
    expect(errors).toEqual([]);
    expect(code).toBe(0);
  });
});
