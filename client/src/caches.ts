/**
 * Both caches' configuration in one module, as the package first shipped it. It loads Apollo Client and
 * graphcache alike; a project using one of them imports `mini-sphere-client/caches/apollo` or
 * `mini-sphere-client/caches/urql` instead.
 */
export {
  apolloCacheOptions,
  apolloTypePolicies,
  applyEntryWrite,
  applyLink,
  applyUnlink,
  evictForgotten,
  possibleTypes,
  updateAfterMutation,
} from './caches/apollo.ts';
export type { ForgetResult, LinkResult, UnlinkResult } from './caches/types.ts';
export { keyFields, valueTypes } from './caches/types.ts';
export { urqlCacheOptions, urqlKeys, urqlResolvers, urqlUpdates } from './caches/urql.ts';
