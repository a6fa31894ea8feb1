import { defineConfig } from 'drizzle-kit';

// The control database (workspaces, token hashes, audit log) has its own migrations.
export default defineConfig({
  dialect: 'turso',
  schema: './src/db/control-schema.ts',
  out: './drizzle/control',
  dbCredentials: { url: process.env.SPHERE_DRIZZLE_URL ?? 'file:./data/drizzle-control-dev.db' },
});
