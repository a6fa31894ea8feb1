import { defineConfig } from 'drizzle-kit';

// Each workspace is its own database; this file only drives `drizzle-kit generate`
// against the table definitions. The FTS5 index lives in a custom migration and is
// filtered out so that `push` never tries to drop it.
export default defineConfig({
  dialect: 'turso',
  schema: './src/db/schema.ts',
  out: './drizzle',
  dbCredentials: { url: process.env.SPHERE_DRIZZLE_URL ?? 'file:./data/drizzle-dev.db' },
  tablesFilter: ['!entries_fts*', '!entry_neighbour*', '!impact_*'],
});
