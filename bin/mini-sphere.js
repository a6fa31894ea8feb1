#!/usr/bin/env node
// Runs the TypeScript CLI directly (no build step): tsx compiles on load.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
