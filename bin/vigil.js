#!/usr/bin/env node
// The `vigil` command. Sources are TypeScript run through tsx's loader, so the CLI always runs the current code.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
