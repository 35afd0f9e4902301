#!/usr/bin/env node
// kubectl-olm: the kubectl / oc plugin. Wiring only; commands live in internal/cli.
import { commands, dispatch } from '../../internal/cli/index.ts';

const code = await dispatch(commands, process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  cwd: process.cwd(),
  env: process.env,
});
process.exitCode = code;
