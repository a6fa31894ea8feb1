import { checkStalenessLimit, runStalenessPass, type StalenessReport } from '../../memory/staleness.ts';
import { builder } from '../builder.ts';
import { checkedFirst, runWrite } from '../guards.ts';
import { VALUE } from './node.ts';

const DEFAULT_STALENESS_LIMIT = 500;

type LimitArg = { limit?: number | null };

/** The pass's limit as the client gave it, or the default. */
function limitOf(args: LimitArg | null | undefined): number {
  return args?.limit ?? DEFAULT_STALENESS_LIMIT;
}

const StalenessReportRef = builder.objectRef<StalenessReport>('StalenessReport').implement({
  description: `What one staleness pass did to the workspace. ${VALUE}`,
  fields: (t) => ({
    scanned: t.exposeInt('scanned', {
      description:
        'Distinct entries the pass looked at: re-classification candidates and the over-age entries it marked.',
    }),
    markedStale: t.exposeInt('markedStale', {
      description: 'ACTIVE entries older (since updatedAt) than their volatility allows that became STALE.',
    }),
    reclassified: t.exposeInt('reclassified', {
      description:
        'Entries with a default volatility that the heuristic classified (their volatility may be unchanged).',
    }),
    at: t.field({ type: 'DateTime', description: 'When the pass ran.', resolve: (r) => r.at }),
  }),
});

const StalenessPassInputRef = builder.inputType('StalenessPassInput', {
  description: 'How much one staleness pass may do.',
  fields: (t) => ({
    limit: t.int({
      defaultValue: DEFAULT_STALENESS_LIMIT,
      description: 'At most this many entries re-classified and at most this many marked stale, 1 to 10,000.',
    }),
  }),
});

const StalenessPassPayloadRef = builder.objectRef<{ report: StalenessReport }>('StalenessPassPayload').implement({
  description: `What runStalenessPass returns. ${VALUE}`,
  fields: (t) => ({
    report: t.field({ type: StalenessReportRef, description: 'What the pass did.', resolve: (p) => p.report }),
  }),
});

builder.mutationFields((t) => ({
  runStalenessPass: t.field({
    type: StalenessPassPayloadRef,
    nullable: true,
    description:
      'Re-classifies up to `limit` default-volatility entries by a text heuristic and marks up to `limit` ' +
      'over-age ACTIVE entries STALE, in one write with an audit row and a STALENESS_PASS event. ' +
      'Needs the maintainer role (or open mode).',
    args: {
      input: t.arg({
        type: StalenessPassInputRef,
        description: 'How much the pass may do; every field has a default.',
      }),
    },
    extensions: checkedFirst(
      (args: { input?: LimitArg | null }) => checkStalenessLimit(limitOf(args.input)),
      'maintain',
    ),
    resolve: async (_r, args, ctx) => {
      const limit = limitOf(args.input);
      const report = await runWrite(
        ctx,
        (scope) => runStalenessPass(scope, { limit, actor: ctx.access.tokenId }),
        'maintain',
      );
      // Who ran it, where, when and with what result, in the server's own audit log.
      await ctx.audit('staleness_pass', { ...report, limit });
      return { report };
    },
  }),
}));
