#!/usr/bin/env node
// A plain-JS entry so that npm can link the bin before the TypeScript build has run.
import { main } from '../dist/cli.js';

process.exitCode = await main(process.argv.slice(2));
// Everything is closed by now; should a stray handle linger, do not hang on it.
setTimeout(() => process.exit(), 2000).unref();
