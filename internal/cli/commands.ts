// Every kubectl-olm command, in help order. Each capability contributes its own file.
import { bundleRender } from './bundle.ts';
import { catalogRender, catalogValidate } from './catalog.ts';
import { bundlePush, catalogPush } from './publish.ts';
import { resolveCommand } from './resolve.ts';
import type { CliCommand } from './types.ts';
import { upgradeCheckCommand } from './upgrade-check.ts';

export const commands: readonly CliCommand[] = [
  catalogValidate,
  catalogRender,
  catalogPush,
  resolveCommand,
  bundleRender,
  bundlePush,
  upgradeCheckCommand,
];
