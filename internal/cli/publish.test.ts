// Argument handling of `catalog push` / `bundle push`, and what fails before any registry is
// reached. Pushing to a real registry: test/integration/cli.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCaptured, type CapturedRun } from './run.ts';
import { progressReporter } from './publish.ts';

let tmp: string;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cli-push-'));
  env = { HOME: join(tmp, 'home') };
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const run = (argv: string[], runEnv: NodeJS.ProcessEnv = env): Promise<CapturedRun> => runCaptured(argv, { cwd: tmp, env: runEnv });

async function tree(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(tmp, name);
  await mkdir(dir, { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

const VALID = {
  'demo.json': [
    { schema: 'olm.package', name: 'demo', defaultChannel: 'stable' },
    { schema: 'olm.channel', package: 'demo', name: 'stable', entries: [{ name: 'demo.v0.1.0' }] },
    {
      schema: 'olm.bundle',
      name: 'demo.v0.1.0',
      package: 'demo',
      image: 'quay.io/example/demo-bundle:v0.1.0',
      properties: [{ type: 'olm.package', value: { packageName: 'demo', version: '0.1.0' } }],
    },
  ]
    .map((b) => JSON.stringify(b))
    .join('\n'),
};
// Nothing listens on port 1: a registry there is unreachable.
const NOWHERE = '127.0.0.1:1/demo/catalog:v1';

describe.each([
  ['catalog', 'catalog push'],
  ['bundle', 'bundle push'],
])('%s push arguments', (kind, command) => {
  const argv = command.split(' ');

  it('prints its usage, with an example, for --help', async () => {
    const r = await run([...argv, '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Usage: kubectl olm ${command} <${kind} dir> <image ref>`));
    expect(r.stdout).toContain(`Example:\n  kubectl olm ${command} ./${kind} `);
    expect(r.stdout).toContain('--plain-http');
  });

  it('wants a directory and a reference (exit 2 with the usage)', async () => {
    const r = await run([...argv, 'only-one']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`error: expected a ${kind} directory and an image reference, got 1 arguments\nSee 'kubectl olm ${argv.join(' ')} --help' for usage.\n`);
  });

  it('refuses a malformed reference with upstream’s message (exit 2)', async () => {
    const r = await run([...argv, 'dir', 'Quay.io/UPPER/case:v1']);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe('error: error parsing image reference "Quay.io/UPPER/case:v1": invalid reference format: repository name (UPPER/case) must be lowercase');
    const bad = await run([...argv, 'dir', 'reg.example/x:bad tag']);
    expect(bad.stderr.split('\n')[0]).toBe('error: error parsing image reference "reg.example/x:bad tag": invalid reference format');
  });

  it('wants a tag, not a digest, and a valid platform', async () => {
    const digest = `sha256:${'a'.repeat(64)}`;
    const r = await run([...argv, 'dir', `reg.example/x@${digest}`]);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(`error: push needs a tag, not a digest: "reg.example/x@${digest}"`);
    const p = await run([...argv, 'dir', 'reg.example/x:v1', '--platform', 'linux']);
    expect(p.code).toBe(2);
    expect(p.stderr.split('\n')[0]).toBe('error: invalid platform "linux": want os/architecture[/variant]');
  });

  it('refuses unknown flags (exit 2)', async () => {
    const r = await run([...argv, 'dir', 'reg.example/x:v1', '--insecure-skip-tls']);
    expect(r.code).toBe(2);
  });
});

describe('catalog push before the registry', () => {
  it('refuses an invalid catalog with catalog validate’s message (exit 1), reaching no registry', async () => {
    const dir = await tree('invalid', { 'a.json': '{"schema":"olm.package","name":"foo"}\n{"schema":"olm.package","name":"foo"}\n' });
    const validate = await run(['catalog', 'validate', dir]);
    const r = await run(['catalog', 'push', dir, NOWHERE, '--plain-http']);
    expect(r).toEqual({ code: 1, stdout: '', stderr: validate.stderr });
    expect(r.stderr).toBe('duplicate package "foo"\n');
  });

  it('says in one line that the registry cannot be reached (exit 1)', async () => {
    const dir = await tree('valid', VALID);
    const r = await run(['catalog', 'push', dir, NOWHERE, '--plain-http']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^push to 127\.0\.0\.1:1\/demo\/catalog: cannot reach 127\.0\.0\.1:1: .*ECONNREFUSED.*\n$/);
  });

  it('takes --insecure-registries, or $OLM_INSECURE_REGISTRIES, as plain-HTTP registries', async () => {
    const dir = await tree('valid2', VALID);
    const flag = await run(['catalog', 'push', dir, NOWHERE, '--insecure-registries', 'other:5000, 127.0.0.1:1']);
    expect(flag.stderr).toMatch(/^push to 127\.0\.0\.1:1\/demo\/catalog: cannot reach 127\.0\.0\.1:1: /);
    const fromEnv = await run(['catalog', 'push', dir, NOWHERE], { ...env, OLM_INSECURE_REGISTRIES: '127.0.0.1:1' });
    expect(fromEnv.stderr).toMatch(/^push to 127\.0\.0\.1:1\/demo\/catalog: cannot reach 127\.0\.0\.1:1: /);
    const https = await run(['catalog', 'push', dir, NOWHERE]);
    expect(https.stderr).toMatch(/^push to 127\.0\.0\.1:1\/demo\/catalog: cannot reach 127\.0\.0\.1:1 over https: /);
  });

  it('suggests --plain-http when an https connection meets a plain-HTTP server', async () => {
    const server = createServer((_req, res) => res.end('{}'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
      const dir = await tree('valid-tls', VALID);
      const r = await run(['catalog', 'push', dir, `${host}/demo/catalog:v1`]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`^push to ${host}/demo/catalog: cannot reach ${host} over https \\(it may serve plain HTTP: use --plain-http\\): .+\n$`));
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('names a credential file that does not parse (exit 1)', async () => {
    const dir = await tree('valid3', VALID);
    const config = await tree('docker', { 'config.json': '{"auths": ' });
    const r = await run(['catalog', 'push', dir, NOWHERE, '--plain-http'], { ...env, DOCKER_CONFIG: config });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^${join(config, 'config.json')}: not valid JSON: .*\n$`));
  });
});

describe('bundle push before the registry', () => {
  it('refuses a directory that is not a registry+v1 bundle in one line (exit 1)', async () => {
    const dir = await tree('not-a-bundle', { 'manifests/csv.yaml': 'kind: ClusterServiceVersion\n' });
    const r = await run(['bundle', 'push', dir, NOWHERE, '--plain-http']);
    expect(r).toEqual({ code: 1, stdout: '', stderr: `${dir} is not a registry+v1 bundle: it has no metadata/annotations.yaml\n` });
  });
});

describe('progress', () => {
  const sink = (isTTY: boolean): PassThrough & { text: () => string } => {
    const s = new PassThrough() as PassThrough & { isTTY?: boolean; text: () => string };
    const parts: Buffer[] = [];
    s.on('data', (c: Buffer) => parts.push(c));
    s.isTTY = isTTY;
    s.text = () => Buffer.concat(parts).toString();
    return s;
  };
  const MiB = 1024 * 1024;
  const digest = `sha256:${'0123456789abcdef'.repeat(4)}`;

  it('shows bytes / total of large blobs on a terminal, and ends the line when done', async () => {
    const tty = sink(true);
    const report = progressReporter(tty);
    expect(report).toBeDefined();
    report?.({ digest, sent: 0, total: 10 * MiB });
    report?.({ digest, sent: 10 * MiB, total: 10 * MiB });
    report?.({ digest, sent: 0, total: 1 * MiB }); // small: no line
    await new Promise((r) => setImmediate(r));
    expect(tty.text()).toBe('\rsha256:0123456789ab  0.0 / 10.0 MiB\rsha256:0123456789ab  10.0 / 10.0 MiB\n');
  });

  it('shows nothing when stderr is not a terminal', () => {
    expect(progressReporter(sink(false))).toBeUndefined();
  });
});
