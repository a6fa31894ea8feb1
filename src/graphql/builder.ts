import SchemaBuilder from '@pothos/core';
import type { Context } from './context.ts';

/** The one schema builder. It defines no types: each lives in its own file under ./types. */
export const builder = new SchemaBuilder<{
  Context: Context;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date | number };
    JSON: { Input: unknown; Output: unknown };
  };
}>({
  defaultFieldNullability: false,
});
