#!/usr/bin/env node
// A plain-JS entry so that npm can link the bin before the TypeScript build has run.
import { main } from '../dist/cli.js';

process.exitCode = await main(process.argv.slice(2));
