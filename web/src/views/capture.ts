import {
  type CaptureOutcome,
  CLAIM_TAGS,
  ENTRY_KINDS,
  ENTRY_STATUSES,
  VOLATILITIES,
} from '../../../src/contract/enums.ts';
import type { View } from '../app.ts';
import { badge, errorBox, field, h, replace, select } from '../dom.ts';
import {
  CaptureDocument,
  type CaptureInput,
  type ClaimTag,
  type EntryKind,
  type EntryStatus,
  RecentEntriesDocument,
  type Volatility,
} from '../generated/graphql.ts';
import { entryBadges, entryLink, tagList } from '../widgets.ts';

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

/** A form with every CaptureInput field; shows the outcome the server decided. */
export const captureView: View = (app, _route, root) => {
  const content = h('textarea', { name: 'content', rows: 6, required: true, maxlength: 100000 });
  const tags = h('input', { name: 'tags', autocomplete: 'off', spellcheck: 'false' });
  const source = h('input', { name: 'source', autocomplete: 'off' });
  const kind = select('kind', ENTRY_KINDS, 'SEMANTIC');
  const status = select('status', ENTRY_STATUSES, 'ACTIVE');
  const volatility = select('volatility', VOLATILITIES, '', 'server default (EVOLVING)');
  const importance = h('input', { name: 'importance', type: 'number', min: 0, max: 1, step: 0.05, value: '0.5' });
  const claimTag = select('claimTag', CLAIM_TAGS, 'UNKNOWN');
  const evidenceRef = h('input', { name: 'evidenceRef', autocomplete: 'off' });
  const observedAt = h('input', { name: 'observedAt', type: 'datetime-local', step: 1 });
  const replaces = h('input', {
    name: 'replaces',
    list: 'replace-candidates',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  const candidates = h('datalist', { id: 'replace-candidates' });
  const outcome = h('div', { id: 'capture-outcome', role: 'status', 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Capture');

  const form = h(
    'form',
    {
      class: 'card form-grid',
      id: 'capture-form',
      onsubmit: async (event: SubmitEvent) => {
        event.preventDefault();
        const input: CaptureInput = {
          content: content.value,
          tags: tags.value
            .split(',')
            .map((t) => t.trim())
            .filter(Boolean),
          source: source.value.trim() || undefined,
          kind: kind.value as EntryKind,
          status: status.value as EntryStatus,
          volatility: (volatility.value || undefined) as Volatility | undefined,
          importance: Number(importance.value),
          claimTag: claimTag.value as ClaimTag,
          evidenceRef: evidenceRef.value.trim() || undefined,
          observedAt: toInstant(observedAt.value),
          replaces: replaces.value.trim() || undefined,
        };
        submit.disabled = true;
        try {
          const { capture } = await app.gql(CaptureDocument, { input });
          if (!capture) throw new Error('The server answered capture with nothing.');
          replace(
            outcome,
            h(
              'div',
              { class: `card outcome outcome-${capture.outcome.toLowerCase()}`, 'data-outcome': capture.outcome },
              h('p', null, badge(capture.outcome, 'outcome'), ' ', OUTCOME_TEXT[capture.outcome]),
              h('p', null, entryLink(capture.entry.id, capture.entry.content, 100)),
              h('p', { class: 'meta-line' }, entryBadges(capture.entry), tagList(capture.entry.tags)),
              capture.matchId && capture.matchId !== capture.entry.id
                ? h('p', null, 'Matched: ', entryLink(capture.matchId, undefined))
                : null,
            ),
          );
          if (capture.outcome !== 'BLOCKED') {
            content.value = '';
            replaces.value = '';
          }
        } catch (error) {
          replace(outcome, errorBox(error));
        } finally {
          submit.disabled = false;
          content.focus();
        }
      },
    },
    h('div', { class: 'wide' }, field('Content', content, 'What to remember. Required; up to 100,000 characters.')),
    h('div', { class: 'wide' }, field('Tags', tags, 'Comma-separated, e.g. architecture, storage.')),
    field('Kind', kind),
    field('Status', status),
    field('Volatility', volatility),
    field('Importance (0–1)', importance),
    field('Claim', claimTag),
    field('Source', source, 'Who or what said it.'),
    field('Evidence reference', evidenceRef, 'A link, file or ticket that backs it.'),
    field('Observed at', observedAt, 'When it happened in the world (your local time).'),
    h('div', { class: 'wide' }, field('Replaces entry id', replaces, 'Supersedes that entry.'), candidates),
    h('div', { class: 'actions wide' }, submit),
  );

  replace(root, h('div', { class: 'view-head' }, h('h1', null, 'Capture')), form, outcome);
  content.focus();
  app
    .gql(RecentEntriesDocument, { n: 50 })
    .then(({ recent }) =>
      replace(
        candidates,
        recent.map((e) => h('option', { value: e.id }, e.content.slice(0, 80))),
      ),
    )
    .catch(() => {});
};
