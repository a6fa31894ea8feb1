import { z } from 'zod';
import { ENTRY_KINDS, VOLATILITIES } from '../../contract/enums.ts';
import type { ChatMessage } from './chat.ts';

/** Characters of an entry's text a prompt carries: enough for a memory's gist, bounded for any entry. */
export const PROMPT_TEXT_MAX = 2_000;

const clip = (text: string): string => (text.length > PROMPT_TEXT_MAX ? `${text.slice(0, PROMPT_TEXT_MAX)} […]` : text);

/** The model's classification of one memory; every field is answered, only the asked ones are used. */
export const ClassificationAnswer = z.object({
  kind: z.enum(ENTRY_KINDS),
  volatility: z.enum(VOLATILITIES),
  importance: z.number().min(0).max(1),
});
export type ClassificationAnswer = z.infer<typeof ClassificationAnswer>;

export const PAIR_RELATIONS = ['unrelated', 'consistent', 'updates', 'contradicts'] as const;

/** The model's verdict on each older memory, by its label in the prompt. */
export const ConflictAnswer = z.object({
  pairs: z
    .array(
      z.object({
        candidate: z.string().max(16),
        relation: z.enum(PAIR_RELATIONS),
        confidence: z.number().min(0).max(1),
        reason: z.string().max(300),
      }),
    )
    .max(20),
});
export type ConflictAnswer = z.infer<typeof ConflictAnswer>;

export const CLASSIFICATION_JSON = z.toJSONSchema(ClassificationAnswer);
export const CONFLICT_JSON = z.toJSONSchema(ConflictAnswer);

/** The question that classifies one memory. */
export function classificationPrompt(content: string): ChatMessage[] {
  return [
    {
      role: 'system',
      content: [
        'You classify one memory of an AI agent. Answer only with JSON: {"kind", "volatility", "importance"}.',
        'kind: EPISODIC (something that happened, at a time), SEMANTIC (a fact or decision that holds),',
        'PROCEDURAL (how to do something), PERSON (about one person), PROJECT (about one project),',
        'DOCUMENT (a document or a summary of one).',
        'volatility: DURABLE (stays true for years), EVOLVING (changes over weeks or months),',
        'EPHEMERAL (true for hours or days).',
        'importance: 0 (trivia) to 1 (critical to remember).',
      ].join(' '),
    },
    { role: 'user', content: `Memory:\n${clip(content)}` },
  ];
}

/** The question that compares a new memory with older ones, labelled "1", "2", … */
export function conflictPrompt(newer: string, older: readonly string[]): ChatMessage[] {
  const list = older.map((text, i) => `[${i + 1}] ${clip(text)}`).join('\n');
  return [
    {
      role: 'system',
      content: [
        'You compare a NEW memory with OLDER memories of the same agent. For each older memory answer',
        'one pair {"candidate": its number as a string, "relation", "confidence" 0..1, "reason": one short line}.',
        'relation: "unrelated" (different subjects), "consistent" (same subject, both can be true),',
        '"updates" (the new one replaces the old one: the old one is out of date),',
        '"contradicts" (both cannot be true, and the new one does not say it replaces the old one).',
        'Answer only with JSON: {"pairs": [...]}.',
      ].join(' '),
    },
    { role: 'user', content: `NEW:\n${clip(newer)}\n\nOLDER:\n${list}` },
  ];
}
