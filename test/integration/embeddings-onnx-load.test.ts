import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testModelDir } from '../helpers/embeddings-server.ts';
import { EVENT, FILLER, onnxConfig } from '../helpers/onnx-model.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

// Inference runs on a thread of its own: the event loop keeps answering while a real model
// (all-MiniLM-L6-v2, scripts/fetch-model.sh) embeds a backlog. Slow by nature (minutes on 2 cores).
const model = testModelDir();

const CAPTURE = `mutation ($input: CaptureInput!) { capture(input: $input) { outcome entry { id } } }`;
const STATS = `{ stats { semantic { vectors lacking } } }`;

describe.skipIf(!model.dir)('onnx embeddings under load', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ config: onnxConfig(model.dir!) });
  }, 300_000);
  afterAll(() => t?.stop());

  it('embeds 2,000 captures on its thread while /health answers within 50 ms', async () => {
    const ws = 'busy';
    const texts = Array.from(
      { length: 2_000 },
      (_, i) =>
        `Entry ${i}: ${FILLER[i % FILLER.length]} Then item ${i * 7} was noted about ${EVENT.slice(0, 40 + (i % 40))}`,
    );
    for (let i = 0; i < texts.length; i += 100) {
      await Promise.all(
        texts.slice(i, i + 100).map((content) => t.gqlOk(CAPTURE, { input: { content } }, { workspace: ws })),
      );
    }
    const health: number[] = [];
    const settled = t.server.semantic()!.settled();
    let done = false;
    void settled.then(() => {
      done = true;
    });
    // While the thread embeds, the event loop answers: each /health is timed end to end.
    for (let i = 0; i < 40 && !done; i++) {
      const started = performance.now();
      const res = await fetch(`${t.origin}/health`);
      expect(res.status).toBe(200);
      await res.body?.cancel();
      health.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 50));
    }
    const stats = (await t.gqlOk(STATS, {}, { workspace: ws })).stats.semantic;
    expect(health.length).toBeGreaterThan(5);
    expect(stats.lacking).toBeGreaterThan(0);
    const sorted = [...health].sort((a, b) => a - b);
    console.info(
      `/health during embedding: p50 ${sorted[sorted.length >> 1]!.toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms`,
    );
    expect(sorted[sorted.length >> 1]).toBeLessThan(50);
    await settled;
    expect((await t.gqlOk(STATS, {}, { workspace: ws })).stats.semantic).toMatchObject({ vectors: 2_000, lacking: 0 });
  }, 600_000);
});
