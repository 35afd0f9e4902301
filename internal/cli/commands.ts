// Every kubectl-olm command, in help order. Each capability contributes its own file.
import { catalogRender, catalogValidate } from './catalog.ts';
import type { CliCommand } from './types.ts';

export const commands: readonly CliCommand[] = [
  catalogValidate,
  catalogRender,
];
