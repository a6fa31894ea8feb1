import type { z } from 'zod';

export interface ChatOptions {
  /** An OpenAI-compatible chat-completions URL, e.g. `http://localhost:11434/v1/chat/completions`. */
  url: string;
  model: string;
  apiKey: string | null;
  timeoutMs: number;
}

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

/** An answer that could not be had: `permanent` when asking again the same way will not help. */
export class ChatError extends Error {
  readonly permanent: boolean;
  constructor(message: string, permanent = false) {
    super(message);
    this.permanent = permanent;
  }
}

interface ChatResponse {
  choices?: { message?: { content?: unknown } }[];
}

/**
 * Any OpenAI-compatible chat-completions endpoint (Ollama, llama.cpp's server, vLLM, hosted
 * ones). Asks for structured output with a JSON schema first; an endpoint that refuses
 * `response_format` is asked again without it, once, and from then on JSON is read out of
 * its text. Every answer is validated: one that does not fit the schema is no answer.
 */
export class ChatClient {
  readonly model: string;
  readonly #opts: ChatOptions;
  /** Whether the endpoint takes `response_format: json_schema` (unknown until it answers). */
  #structured = true;

  constructor(opts: ChatOptions) {
    this.#opts = opts;
    this.model = opts.model;
  }

  /** One question, answered as `schema` describes, or a ChatError. */
  async ask<T>(messages: readonly ChatMessage[], name: string, schema: z.ZodType<T>, json: object): Promise<T> {
    let text: string;
    try {
      text = await this.#post(messages, this.#structured ? { name, schema: json } : null);
    } catch (error) {
      // A 400 that names response_format: the endpoint has no structured output; ask plainly.
      if (!(error instanceof ChatError && error.message.includes('response_format')) || !this.#structured) throw error;
      this.#structured = false;
      text = await this.#post(messages, null);
    }
    const parsed = schema.safeParse(parseJsonAnswer(text));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ChatError(
        `the model's answer did not fit the schema (${issue?.path.join('.') || 'answer'}: ${issue?.message})`,
      );
    }
    return parsed.data;
  }

  async #post(messages: readonly ChatMessage[], format: { name: string; schema: object } | null): Promise<string> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.#opts.apiKey) headers.authorization = `Bearer ${this.#opts.apiKey}`;
    const body: Record<string, unknown> = { model: this.#opts.model, messages, temperature: 0, stream: false };
    if (format) body.response_format = { type: 'json_schema', json_schema: { ...format, strict: true } };
    let res: Response;
    try {
      res = await fetch(this.#opts.url, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.#opts.timeoutMs),
      });
    } catch (error) {
      const timedOut = (error as Error)?.name === 'TimeoutError';
      throw new ChatError(
        timedOut
          ? `chat endpoint timed out after ${this.#opts.timeoutMs} ms`
          : `chat endpoint unreachable (${causeOf(error)})`,
      );
    }
    if (!res.ok) {
      const detail = (await res.text().catch(() => '')).slice(0, 300);
      const permanent = res.status >= 400 && res.status < 500 && res.status !== 429 && res.status !== 408;
      const mentions = format && res.status === 400 && /response_format|json_schema/i.test(detail);
      throw new ChatError(
        `chat endpoint answered HTTP ${res.status}${mentions ? ' to response_format' : ''}`,
        permanent && !mentions,
      );
    }
    let answer: ChatResponse;
    try {
      answer = (await res.json()) as ChatResponse;
    } catch {
      throw new ChatError('chat endpoint answered with a body that is not JSON');
    }
    const content = answer.choices?.[0]?.message?.content;
    if (typeof content !== 'string') throw new ChatError('chat endpoint answered without a message');
    return content;
  }
}

/**
 * The JSON object in a model's text: the whole text when it parses, else the first balanced
 * `{…}` (models without structured output wrap it in prose or code fences); undefined when
 * there is none. Bounded: at most 64 KiB of text is looked at.
 *
 * @example parseJsonAnswer('Sure! ```json\n{"kind":"EPISODIC"}\n```') // { kind: 'EPISODIC' }
 */
export function parseJsonAnswer(text: string): unknown {
  const t = text.slice(0, 64 * 1024);
  try {
    return JSON.parse(t);
  } catch {
    // fall through to the first object in the text
  }
  const start = t.indexOf('{');
  if (start < 0) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = start; i < t.length; i++) {
    const c = t[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) {
      try {
        return JSON.parse(t.slice(start, i + 1));
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** fetch's own message is only "fetch failed": the cause says what an operator can act on. */
function causeOf(error: unknown): string {
  const message = (error as Error)?.message;
  const cause = (error as { cause?: { message?: string } })?.cause?.message;
  return cause ? `${message}: ${cause}` : String(message);
}
