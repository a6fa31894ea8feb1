import { defaultFieldResolver, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import { DomainError } from '../contract/errors.ts';
import { LIMITS } from '../contract/limits.ts';

/**
 * How many root fields of an operation that could read past the cap read at once; the others
 * wait their turn, and the loop serves other requests between turns: an operation of thirty
 * aliases holds the loop for one read at a time, not for thirty. Operations estimated within
 * the cap read all at once, so that their loaders batch across root fields.
 */
export const READS_AT_ONCE = 1;
/** How deep a read's result is walked for the text it holds: a list, its items, what they hold. */
const WALK_DEPTH = 4;
/** The most text one stored row holds: an entry's content, source and evidence, and room for the rest. */
const ROW_MAX_BYTES = LIMITS.contentMax + LIMITS.sourceMax + LIMITS.evidenceRefMax + 1_000;
/** What each value that is not a string counts for. */
const VALUE_BYTES = 8;

export function responseTooLarge(maxBytes: number): DomainError {
  return new DomainError(
    'RESPONSE_TOO_LARGE',
    `the answer would be larger than ${maxBytes} bytes; ask for fewer items (n, first, topK, limit) ` +
      'or leave out large fields such as content',
  );
}

/**
 * One operation's allowance of bytes read, SPHERE_MAX_RESPONSE_BYTES, charged as rows
 * come back rather than once the answer is built: once it is spent, no further read
 * starts and the operation is answered RESPONSE_TOO_LARGE, having read about the cap
 * and one read more (at most 200 entries, see loaders.ts), not everything it asked for.
 *
 * Root fields of an operation estimated past the cap (`plan`) read one at a time
 * (READS_AT_ONCE), with the loop free for other requests between them, so thirty aliases of
 * a heavy list stop after the read that spends the allowance instead of all starting together.
 */
export class ReadBudget {
  readonly maxBytes: number;
  #left: number;
  readonly #charged = new WeakSet<object>();
  #reading = 0;
  #reads = 0;
  #atOnce = Number.POSITIVE_INFINITY;
  #countContent = true;
  readonly #waiting: (() => void)[] = [];

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
    this.#left = maxBytes;
  }

  /** True once the reads have passed the allowance. */
  get spent(): boolean {
    return this.#left < 0;
  }

  /**
   * Fits the budget to the operation's estimate: root fields read in turns when its bytes
   * could pass the cap, and the contents it reads count only if it selects `content` (recall
   * reads whole entries to answer snippets; those contents are not part of its answer).
   */
  plan(estimate: { bytes: number; content?: boolean }): void {
    this.#atOnce = estimate.bytes > this.maxBytes ? READS_AT_ONCE : Number.POSITIVE_INFINITY;
    this.#countContent = estimate.content === true;
  }

  /** Whether `rows` rows of the largest kind (an entry at its longest) would fit what is left. */
  fits(rows: number): boolean {
    return rows * ROW_MAX_BYTES <= this.#left;
  }

  /** Refuses (RESPONSE_TOO_LARGE) once the allowance is spent: call before a read. */
  check(): void {
    if (this.spent) throw responseTooLarge(this.maxBytes);
  }

  /**
   * Charges what `value` holds (strings by length, each row once however often it is read)
   * and refuses once the allowance is spent.
   */
  charge(value: unknown): void {
    this.#left -= this.#sizeOf(value, 0);
    this.check();
  }

  /** Runs a read in its turn, if the allowance is not spent, and charges what it returned. */
  async read<T>(run: () => Promise<T> | T): Promise<T> {
    this.check();
    if (this.#reading >= this.#atOnce) {
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    this.#reading++;
    try {
      if (this.#reads++ > 0 && this.#atOnce === READS_AT_ONCE) {
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      this.check();
      const value = await run();
      this.charge(value);
      return value;
    } finally {
      this.#reading--;
      this.#waiting.shift()?.();
    }
  }

  #sizeOf(value: unknown, depth: number): number {
    if (typeof value === 'string') return value.length;
    if (value === null || typeof value !== 'object') return VALUE_BYTES;
    if (depth >= WALK_DEPTH || this.#charged.has(value)) return VALUE_BYTES;
    this.#charged.add(value);
    let total = 0;
    if (Array.isArray(value)) {
      for (const item of value) total += this.#sizeOf(item, depth + 1);
    } else {
      for (const key in value) {
        if (key === 'content' && !this.#countContent) continue;
        total += key.length + this.#sizeOf((value as Record<string, unknown>)[key], depth + 1);
      }
    }
    return total;
  }
}

const budgeted = new WeakSet<object>();

/**
 * Puts every root query field's read under its operation's ReadBudget (`readBudget` of
 * the context; operations without one, such as subscription events, read freely).
 */
export function withReadBudget(schema: GraphQLSchema): GraphQLSchema {
  const query = schema.getQueryType();
  for (const field of Object.values(query?.getFields() ?? {})) {
    // One schema may serve several servers in a process: wrap each field once.
    if (budgeted.has(field)) continue;
    budgeted.add(field);
    const resolve: GraphQLFieldResolver<unknown, { readBudget?: ReadBudget }> = field.resolve ?? defaultFieldResolver;
    field.resolve = (source, args, ctx, info) =>
      ctx?.readBudget ? ctx.readBudget.read(() => resolve(source, args, ctx, info)) : resolve(source, args, ctx, info);
  }
  return schema;
}
