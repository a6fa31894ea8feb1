import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LlmConfig } from '../../src/config.ts';

/** The LLM binding's configuration for a test endpoint at `url` (model `rules-1`), with `extra` on top. */
export function llmConfig(url: string, extra: Partial<LlmConfig> = {}): LlmConfig {
  return {
    kind: 'http',
    url,
    model: 'rules-1',
    apiKey: null,
    timeoutMs: 5_000,
    concurrency: 2,
    supersede: false,
    supersedeConfidence: 0.9,
    candidates: 5,
    ...extra,
  };
}

/**
 * How the endpoint answers: `ok` by its rules; `fail` HTTP 500; `hang` never; `malformed`
 * text that holds no JSON; `schema` JSON of the wrong shape; `no-structured` refuses
 * `response_format` with a 400 (as endpoints without structured output do) and otherwise
 * answers by its rules, its JSON wrapped in prose.
 */
export type ChatMode = 'ok' | 'fail' | 'hang' | 'malformed' | 'schema' | 'no-structured';

export interface ChatRequest {
  task: 'classification' | 'conflicts' | 'other';
  model: string;
  structured: boolean;
  messages: { role: string; content: string }[];
  status: number;
}

/**
 * A real OpenAI-compatible `/v1/chat/completions` endpoint on port 0 whose answers follow
 * fixed rules over the prompt's text, so tests know what a "model" will say:
 * - classification: "how to" → PROCEDURAL, "yesterday"/"met" → EPISODIC, else SEMANTIC;
 *   "today"/"tonight" → EPHEMERAL, "always"/"forever" → DURABLE, else EVOLVING;
 *   "urgent"/"critical" → importance 0.9, else 0.2.
 * - conflicts: two memories are about the same thing when their first noun after "The" is
 *   the same word. Then a different weekday or number is "updates" (confidence 0.95) when the
 *   new text says "moved", "now" or "changed", else "contradicts" (0.8); the same ones are
 *   "consistent". Different subjects are "unrelated".
 */
export interface ChatServer {
  /** http://127.0.0.1:<port>/v1/chat/completions */
  url: string;
  mode: ChatMode;
  delayMs: number;
  requests: ChatRequest[];
  close(): Promise<void>;
}

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

function classify(text: string) {
  const t = text.toLowerCase();
  const kind = t.includes('how to') ? 'PROCEDURAL' : /\b(yesterday|met)\b/.test(t) ? 'EPISODIC' : 'SEMANTIC';
  const volatility = /\b(today|tonight)\b/.test(t)
    ? 'EPHEMERAL'
    : /\b(always|forever)\b/.test(t)
      ? 'DURABLE'
      : 'EVOLVING';
  const importance = /\b(urgent|critical)\b/.test(t) ? 0.9 : 0.2;
  return { kind, volatility, importance };
}

const subjectOf = (text: string) => /\bthe\s+([a-z]+)/i.exec(text)?.[1]?.toLowerCase() ?? null;
const factsOf = (text: string) => {
  const words = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  return words.filter((w) => WEEKDAYS.includes(w) || /^\d+$/.test(w)).join(' ');
};

function compare(newer: string, older: string[]) {
  return {
    pairs: older.map((old, i) => {
      const candidate = String(i + 1);
      const s = subjectOf(newer);
      if (!s || s !== subjectOf(old))
        return { candidate, relation: 'unrelated', confidence: 0.9, reason: 'different subjects' };
      if (factsOf(newer) === factsOf(old)) {
        return { candidate, relation: 'consistent', confidence: 0.9, reason: `both say the same of the ${s}` };
      }
      return /\b(moved|now|changed)\b/i.test(newer)
        ? {
            candidate,
            relation: 'updates',
            confidence: 0.95,
            reason: `the ${s} changed: ${factsOf(old)} -> ${factsOf(newer)}`,
          }
        : {
            candidate,
            relation: 'contradicts',
            confidence: 0.8,
            reason: `the ${s}: ${factsOf(old)} vs ${factsOf(newer)}`,
          };
    }),
  };
}

/** The new memory and the older ones out of the binding's conflict prompt. */
function parseConflictPrompt(user: string): { newer: string; older: string[] } {
  const [, newPart = '', olderPart = ''] = /^NEW:\n([\s\S]*?)\n\nOLDER:\n([\s\S]*)$/.exec(user) ?? [];
  const older = olderPart.split(/\n(?=\[\d+\] )/).map((line) => line.replace(/^\[\d+\] /, ''));
  return { newer: newPart, older };
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

const completion = (model: string, content: string) => ({
  id: 'chatcmpl-test',
  object: 'chat.completion',
  created: Math.floor(Date.now() / 1000),
  model,
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
});

export async function startChatServer(opts: { port?: number; mode?: ChatMode } = {}): Promise<ChatServer> {
  const hung = new Set<ServerResponse>();
  const state: ChatServer = {
    url: '',
    mode: opts.mode ?? 'ok',
    delayMs: 0,
    requests: [],
    close: async () => {},
  };
  const http: Server = createServer(async (req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return reply(res, 404, { error: 'not found' });
    const body = await readJson(req);
    const messages = (body.messages ?? []) as { role: string; content: string }[];
    const user = messages.find((m) => m.role === 'user')?.content ?? '';
    const task = user.startsWith('Memory:') ? 'classification' : user.startsWith('NEW:') ? 'conflicts' : 'other';
    const structured = body.response_format !== undefined;
    const model = String(body.model ?? '');
    const record = (status: number) => state.requests.push({ task, model, structured, messages, status });
    if (state.delayMs > 0) await new Promise((r) => setTimeout(r, state.delayMs));
    const mode = state.mode;
    if (mode === 'hang') {
      record(0);
      hung.add(res);
      res.on('close', () => hung.delete(res));
      return;
    }
    if (mode === 'fail') {
      record(500);
      return reply(res, 500, { error: { message: 'model crashed' } });
    }
    if (mode === 'no-structured' && structured) {
      record(400);
      return reply(res, 400, { error: { message: "'response_format' is not supported by this server" } });
    }
    record(200);
    if (mode === 'malformed') return reply(res, 200, completion(model, 'I am not sure what you mean.'));
    if (mode === 'schema') return reply(res, 200, completion(model, JSON.stringify({ kind: 'FRIEND', pairs: 'none' })));
    let answer: unknown = {};
    if (task === 'classification') answer = classify(user.slice('Memory:\n'.length));
    else if (task === 'conflicts') {
      const { newer, older } = parseConflictPrompt(user);
      answer = compare(newer, older);
    }
    const text = JSON.stringify(answer);
    reply(
      res,
      200,
      completion(model, mode === 'no-structured' ? `Here is the answer:\n\`\`\`json\n${text}\n\`\`\`` : text),
    );
  });
  await new Promise<void>((resolve) => http.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  state.url = `http://127.0.0.1:${port}/v1/chat/completions`;
  state.close = () =>
    new Promise<void>((resolve) => {
      for (const res of hung) res.destroy();
      http.closeAllConnections();
      http.close(() => resolve());
    });
  return state;
}
