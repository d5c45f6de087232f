#!/usr/bin/env node
// The `hearth` command. Hearth runs from its TypeScript sources through tsx, so there is no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
