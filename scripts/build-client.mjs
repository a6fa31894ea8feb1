// Compiles the typed client (client/src/index.ts, client/src/caches.ts and what they import) to client/dist: ESM
// JavaScript with .d.ts beside it, what client/package.json exports. Type errors fail the
// build, so a published package never declares types its code does not have.

import { fileURLToPath } from 'node:url';
import { buildInto } from './build-into.mjs';

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
  // Swapped into place (buildInto): a program type-checking against the package meanwhile
  // never finds it missing, and files of a removed module do not linger.
  await buildInto(parsed.options.outDir, (fresh) => {
    const program = ts.createProgram(parsed.fileNames, { ...parsed.options, outDir: fresh });
    const emitted = program.emit();
    const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
    if (diagnostics.length > 0) {
      const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => CLIENT, getNewLine: () => '\n' };
      throw new Error(`client build failed:\n${ts.formatDiagnostics(diagnostics, host)}`);
    }
  });
  return true;
}

// `node scripts/build-client.mjs` builds the client alone.
if (process.argv[1] === fileURLToPath(import.meta.url)) await buildClient();
