#!/usr/bin/env node
// Runs the TypeScript CLI through tsx's loader, so the workspace needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/cluster-ddl.ts');
