#!/usr/bin/env node
// kubectl-olm: the kubectl / oc plugin. Wiring only; commands live in internal/cli.
import { main } from './cli.ts';

process.exitCode = await main(process.argv.slice(2));
