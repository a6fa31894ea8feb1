import {
  type CaptureOutcome,
  CLAIM_TAGS,
  ENTRY_KINDS,
  ENTRY_STATUSES,
  VOLATILITIES,
} from '../../../src/contract/enums.ts';
import type { App, View } from '../app.ts';
import {
  CaptureDocument,
  type CaptureInput,
  type CaptureMutation,
  type ClaimTag,
  type EntryKind,
  type EntryStatus,
  type Volatility,
} from '../documents.ts';
import { badge, field, h, replace, select } from '../dom.ts';
import { entryPicker } from '../picker.ts';
import { entryBadges, entryLink, problemBox, tagList } from '../widgets.ts';

const OUTCOME_TEXT: Record<CaptureOutcome, string> = {
  STORED: 'Stored as a new entry.',
  BLOCKED: 'Blocked: an entry with the same content exists, and nothing was written.',
  MERGED: 'Merged: the same content exists; the new tags were added to it.',
  REPLACED: 'Replaced: stored as a new entry; the old one is now SUPERSEDED.',
};

/** A `datetime-local` value (the reader's time zone) as an ISO instant. */
function toInstant(local: string): string | undefined {
  return local ? new Date(local).toISOString() : undefined;
}

/** The form's controls, one per CaptureInput field. */
function captureControls(app: App, signal: AbortSignal) {
  return {
    content: h('textarea', { name: 'content', rows: 6, required: true, maxlength: 100000 }),
    tags: h('input', { name: 'tags', autocomplete: 'off', spellcheck: 'false' }),
    source: h('input', { name: 'source', autocomplete: 'off' }),
    kind: select('kind', ENTRY_KINDS, 'SEMANTIC'),
    status: select('status', ENTRY_STATUSES, 'ACTIVE'),
    volatility: select('volatility', VOLATILITIES, '', 'server default (EVOLVING)'),
    importance: h('input', { name: 'importance', type: 'number', min: 0, max: 1, step: 0.05, value: '0.5' }),
    claimTag: select('claimTag', CLAIM_TAGS, 'UNKNOWN'),
    evidenceRef: h('input', { name: 'evidenceRef', autocomplete: 'off' }),
    observedAt: h('input', { name: 'observedAt', type: 'datetime-local', step: 1 }),
    replaces: entryPicker(app, 'replaces', { signal }),
  };
}

type CaptureControls = ReturnType<typeof captureControls>;

/** What the form says, as the mutation's input; blank optional fields are left to the server. */
function captureInput(c: CaptureControls): CaptureInput {
  return {
    content: c.content.value,
    tags: c.tags.value
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean),
    source: c.source.value.trim() || undefined,
    kind: c.kind.value as EntryKind,
    status: c.status.value as EntryStatus,
    volatility: (c.volatility.value || undefined) as Volatility | undefined,
    importance: Number(c.importance.value),
    claimTag: c.claimTag.value as ClaimTag,
    evidenceRef: c.evidenceRef.value.trim() || undefined,
    observedAt: toInstant(c.observedAt.value),
    replaces: c.replaces.value() || undefined,
  };
}

/** What the server decided, with the entry it stored or kept and the one it matched. */
function outcomeCard(capture: NonNullable<CaptureMutation['capture']>): HTMLElement {
  return h(
    'div',
    { class: `card outcome outcome-${capture.outcome.toLowerCase()}`, 'data-outcome': capture.outcome },
    h('p', null, badge(capture.outcome, 'outcome'), ' ', OUTCOME_TEXT[capture.outcome]),
    h('p', null, entryLink(capture.entry.id, capture.entry.content, 100)),
    h('p', { class: 'meta-line' }, entryBadges(capture.entry), tagList(capture.entry.tags)),
    capture.matchId && capture.matchId !== capture.entry.id
      ? h('p', null, 'Matched: ', entryLink(capture.matchId, undefined))
      : null,
  );
}

/** Sends the form; the outcome, or why the server refused it, lands in `outcome`. */
async function submitCapture(
  app: App,
  c: CaptureControls,
  outcome: HTMLElement,
  submit: HTMLButtonElement,
): Promise<void> {
  const input = captureInput(c);
  submit.disabled = true;
  try {
    const { capture } = await app.gql(CaptureDocument, { input });
    if (!capture) throw new Error('The server answered capture with nothing.');
    replace(outcome, outcomeCard(capture));
    if (capture.outcome !== 'BLOCKED') {
      c.content.value = '';
      c.replaces.clear();
    }
  } catch (error) {
    replace(outcome, problemBox(app, error, 'write'));
  } finally {
    submit.disabled = false;
    c.content.focus();
  }
}

/** The fields laid out, with their labels and hints. */
function captureFields(c: CaptureControls): HTMLElement[] {
  return [
    h('div', { class: 'wide' }, field('Content', c.content, 'What to remember. Required; up to 100,000 characters.')),
    h('div', { class: 'wide' }, field('Tags', c.tags, 'Comma-separated, e.g. architecture, storage.')),
    field('Kind', c.kind),
    field('Status', c.status),
    field('Volatility', c.volatility),
    field('Importance (0–1)', c.importance),
    field('Claim', c.claimTag),
    field('Source', c.source, 'Who or what said it.'),
    field('Evidence reference', c.evidenceRef, 'A link, file or ticket that backs it.'),
    field('Observed at', c.observedAt, 'When it happened in the world (your local time).'),
    h(
      'div',
      { class: 'wide' },
      field('Replaces', c.replaces.input, 'The entry this one supersedes: type words of it, or paste its id.'),
      c.replaces.element,
    ),
  ];
}

/** A form with every CaptureInput field; shows the outcome the server decided. */
export const captureView: View = (app, _route, root, signal) => {
  const c = captureControls(app, signal);
  const outcome = h('div', { id: 'capture-outcome', role: 'status', 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Capture');
  const onsubmit = (event: SubmitEvent) => {
    event.preventDefault();
    void submitCapture(app, c, outcome, submit);
  };
  const form = h(
    'form',
    { class: 'card form-grid', id: 'capture-form', onsubmit },
    captureFields(c),
    h('div', { class: 'actions wide' }, submit),
  );

  replace(root, h('div', { class: 'view-head' }, h('h1', null, 'Capture')), form, outcome);
  c.content.focus();
};
