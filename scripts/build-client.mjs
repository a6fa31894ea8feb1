// Compiles the typed client (client/src/index.ts, client/src/caches.ts and what they import) to client/dist: ESM
// JavaScript with .d.ts beside it, what client/package.json exports. Type errors fail the
// build, so a published package never declares types its code does not have.
import { renameSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const CLIENT = fileURLToPath(new URL('../client/', import.meta.url));

/** Builds client/dist afresh; resolves false (and says why) when TypeScript is not installed. */
export async function buildClient() {
  let ts;
  try {
    ts = (await import('typescript')).default;
  } catch {
    console.warn('client/dist not built: typescript is a dev dependency and is not installed');
    return false;
  }
  const file = `${CLIENT}tsconfig.build.json`;
  const { config, error } = ts.readConfigFile(file, ts.sys.readFile);
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, CLIENT, undefined, file);
  // Built into a folder of its own and swapped into place: a program type-checking against
  // the package meanwhile never finds it missing, and files of a removed module do not linger.
  const out = parsed.options.outDir;
  const fresh = `${out}.build-${process.pid}`;
  const old = `${out}.old-${process.pid}`;
  rmSync(fresh, { recursive: true, force: true });
  try {
    const program = ts.createProgram(parsed.fileNames, { ...parsed.options, outDir: fresh });
    const emitted = program.emit();
    const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
    if (diagnostics.length > 0) {
      const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => CLIENT, getNewLine: () => '\n' };
      throw new Error(`client build failed:\n${ts.formatDiagnostics(diagnostics, host)}`);
    }
    try {
      renameSync(out, old);
    } catch (error) {
      if (error.code !== 'ENOENT') throw error;
    }
    renameSync(fresh, out);
  } finally {
    rmSync(fresh, { recursive: true, force: true });
    rmSync(old, { recursive: true, force: true });
  }
  return true;
}

// `node scripts/build-client.mjs` builds the client alone.
if (process.argv[1] === fileURLToPath(import.meta.url)) await buildClient();
