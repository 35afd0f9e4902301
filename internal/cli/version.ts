// `kubectl olm version` (and `kubectl olm --version`): the plugin's version, as kubectl prints its own — and, as
// `kubectl version` does, the cluster's Kubernetes version unless --client.
import { readFile } from 'node:fs/promises';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, parseFlags, withClient } from './cluster.ts';
import { emit, json, outputFormat, yaml } from './output.ts';
import { CliUsageError, type CliCommand } from './types.ts';

/**
 * The version of the nearest package.json above this module that has one — the checkout's from internal/cli, the
 * package's from the bundle's chunks (dist/kubectl-olm/package.json only sets the module type).
 */
export async function clientVersion(): Promise<string> {
  for (let up = '../'; up.length <= 5 * 3; up += '../') {
    try {
      const pkg = JSON.parse(await readFile(new URL(`${up}package.json`, import.meta.url), 'utf8')) as { version?: string };
      if (pkg.version) return `v${pkg.version}`;
    } catch {
      // none here: one directory up
    }
  }
  return 'unknown';
}

export const versionCommand: CliCommand = {
  path: ['version'],
  summary: 'print the kubectl-olm version (and the cluster’s Kubernetes version unless --client)',
  usage: [
    'Usage: kubectl olm version [--client] [-o json|yaml] [flags]',
    '       kubectl olm --version',
    '',
    'Prints the version of kubectl-olm and, as `kubectl version` does, the Kubernetes version of the cluster.',
    '',
    'Flags:',
    '      --client               only the kubectl-olm version (no cluster needed)',
    '  -o, --output json|yaml     clientVersion and serverVersion as an object',
    ...CONNECTION_USAGE,
    '',
    'Examples:',
    '  kubectl olm version',
    '  kubectl olm --version',
  ].join('\n'),
  async run(args, io) {
    const { values, positionals } = parseFlags(args, { ...CONNECTION_OPTIONS, client: { type: 'boolean' }, output: { type: 'string', short: 'o' } });
    if (positionals.length > 0) throw new CliUsageError(`unexpected argument "${positionals[0]!}"`);
    const format = values.output === undefined ? 'table' : outputFormat(values.output, ['json', 'yaml']);
    const client = { gitVersion: await clientVersion(), nodeVersion: process.version, platform: `${process.platform}/${process.arch}` };
    const answer = values.client ? undefined : await withClient(values, io, (c) => c.connection.request<{ gitVersion?: string }>({ method: 'GET', path: '/version' })).catch((err: Error) => err);
    const server = answer instanceof Error ? undefined : answer;
    if (format === 'json' || format === 'yaml') {
      const value = { clientVersion: client, ...(server && { serverVersion: server }) };
      await emit(io.stdout, format === 'json' ? json(value) : await yaml(value));
    } else {
      await emit(io.stdout, `Client Version: ${client.gitVersion}\n${server ? `Server Version: ${server.gitVersion ?? 'unknown'}\n` : ''}`);
    }
    if (answer instanceof Error) {
      io.stderr.write(`error: ${answer.message}\n`);
      return 1;
    }
    return 0;
  },
};
