// `kubectl olm catalog validate|render <dir>`: the checks `opm validate` runs, and the bytes
// catalogd would serve at /api/v1/all, for catalog maintainers' CI and for looking before pushing.
import { dump } from 'js-yaml';
import { encodeJsonl, FbcLoadError, FbcValidationError, loadCatalog, validateDirectory } from '../shared/fbc/index.ts';
import { emit } from './output.ts';
import { CliUsageError, directory, parseStrict, type CliCommand, type CliIO } from './types.ts';

function catalogDir(positionals: readonly string[], io: CliIO): Promise<string> {
  if (positionals.length !== 1) throw new CliUsageError(`expected exactly one catalog directory, got ${positionals.length}`);
  return directory(io, positionals[0]!);
}

export const catalogValidate: CliCommand = {
  path: ['catalog', 'validate'],
  summary: 'check a file-based catalog directory with opm validate’s rules (exit 1 when invalid)',
  usage: [
    'Usage: kubectl olm catalog validate <dir> [-o text|json|yaml]',
    '',
    'Loads the file-based catalog under <dir> (JSON and YAML, .indexignore honoured) and runs',
    'every check `opm validate` runs, with its messages. Prints nothing and exits 0 when the',
    'catalog is valid; otherwise prints the error and exits 1. With -o json|yaml the result is',
    '{"passed": <bool>, "error": {"message": "..."}} as opm prints it.',
    '',
    'Example:',
    '  kubectl olm catalog validate demo/catalog',
  ].join('\n'),
  async run(args, io) {
    const { values, positionals } = parseStrict(args, { output: { type: 'string', short: 'o' } });
    const output = values.output ?? 'text';
    if (!['text', 'json', 'yaml'].includes(output)) throw new CliUsageError(`invalid output format "${output}": want text, json or yaml`);
    const dir = await catalogDir(positionals, io);
    const message = await validateDirectory(dir);
    if (output === 'text') {
      if (message !== undefined) io.stderr.write(`${message}\n`);
    } else {
      const result = message === undefined ? { passed: true } : { passed: false, error: { message } };
      io.stdout.write(output === 'json' ? `${JSON.stringify(result, null, 4)}\n` : dump(result, { lineWidth: -1 }));
    }
    return message === undefined ? 0 : 1;
  },
};

export const catalogRender: CliCommand = {
  path: ['catalog', 'render'],
  summary: 'print a catalog directory as catalogd serves it (JSON lines, /api/v1/all)',
  usage: [
    'Usage: kubectl olm catalog render <dir>',
    '',
    'Prints the catalog under <dir> exactly as catalogd serves it at /catalogs/<name>/api/v1/all:',
    'one compact JSON blob per line, keys sorted, in file-walk order. Exits 1 when a file cannot',
    'be parsed (the message names the file and the blob).',
    '',
    'Example:',
    "  kubectl olm catalog render demo/catalog | jq -c 'select(.schema == \"olm.channel\") | {name, entries}'",
  ].join('\n'),
  async run(args, io) {
    const { positionals } = parseStrict(args, {});
    const dir = await catalogDir(positionals, io);
    let chunks: readonly Buffer[];
    try {
      chunks = encodeJsonl(await loadCatalog(dir, { strict: false })).chunks;
    } catch (err) {
      // A problem as opm words it: load errors name the file and the blob; validation errors are opm's text.
      if (!(err instanceof FbcLoadError || err instanceof FbcValidationError)) throw err;
      io.stderr.write(`${err.message}\n`);
      return 1;
    }
    for (const chunk of chunks) await emit(io.stdout, chunk);
    return 0;
  },
};
