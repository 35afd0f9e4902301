import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadKubeConfig } from './config.ts';
import { KubeConfigError } from './errors.ts';

let dir: string;
const CA = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString('base64');
const good = (extra = ''): string => `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://127.0.0.1:6443/
    certificate-authority-data: ${CA}
users:
- name: u
  user:
    token: secret-token
contexts:
- name: ctx
  context:
    cluster: c
    user: u
    namespace: olmv1-system
current-context: ctx
${extra}`;

async function file(name: string, text: string): Promise<string> {
  const p = join(dir, name);
  await writeFile(p, text);
  return p;
}

/** Loads and returns the KubeConfigError, checking it is a single line. */
async function failure(options: Parameters<typeof loadKubeConfig>[0]): Promise<KubeConfigError> {
  const err = await loadKubeConfig(options).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(KubeConfigError);
  const e = err as KubeConfigError;
  expect(e.message).not.toContain('\n');
  return e;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kubeconfig-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('loadKubeConfig', () => {
  it('reads server, namespace and a bearer token from an explicit file', async () => {
    const access = await loadKubeConfig({ kubeconfig: await file('good', good()), env: {} });
    expect(access.server).toBe('https://127.0.0.1:6443');
    expect(access.namespace).toBe('olmv1-system');
    expect(access.source).toBe(`kubeconfig ${join(dir, 'good')} (context ctx)`);
    const creds = await access.credentials();
    expect(creds.headers['authorization']).toBe('Bearer secret-token');
    expect(Buffer.from(creds.tls.ca!).toString()).toContain('BEGIN CERTIFICATE');
  });

  it('follows $KUBECONFIG, merging files first-wins and skipping missing ones', async () => {
    const second = await file(
      'second',
      `clusters:\n- name: c\n  cluster:\n    server: https://ignored:1\nusers:\n- name: u2\n  user:\n    token: t2\ncontexts:\n- name: other\n  context:\n    cluster: c\n    user: u2\ncurrent-context: other\n`,
    );
    const first = await file('first', good());
    const env = { KUBECONFIG: [join(dir, 'absent'), first, second].join(':') };
    const access = await loadKubeConfig({ env });
    expect(access.server).toBe('https://127.0.0.1:6443'); // first file's cluster "c" wins
    expect(access.source).toContain('(context ctx)'); // and its current-context
    const other = await loadKubeConfig({ env, context: 'other' });
    expect((await other.credentials()).headers['authorization']).toBe('Bearer t2');
  });

  it('re-reads a tokenFile user, so a rotated token is used', async () => {
    const tokenPath = await file('token', 'first-token\n');
    const text = good().replace('    token: secret-token', `    tokenFile: ${tokenPath}`);
    const access = await loadKubeConfig({ kubeconfig: await file('tokenfile', text), env: {}, refreshMs: 0 });
    expect((await access.credentials()).headers['authorization']).toBe('Bearer first-token');
  });

  it('reads client certificates relative to the file, tls-server-name, insecure-skip-tls-verify and as', async () => {
    const sub = join(dir, 'certs');
    await mkdir(sub, { recursive: true });
    await writeFile(join(sub, 'client.crt'), 'CERT');
    await writeFile(join(sub, 'client.key'), 'KEY');
    const text = good()
      .replace(`    certificate-authority-data: ${CA}`, '    insecure-skip-tls-verify: true\n    tls-server-name: api.internal')
      .replace('    token: secret-token', '    client-certificate: certs/client.crt\n    client-key: certs/client.key\n    as: jane');
    const creds = await (await loadKubeConfig({ kubeconfig: await file('certs.yaml', text), env: {} })).credentials();
    expect(Buffer.from(creds.tls.cert!).toString()).toBe('CERT');
    expect(Buffer.from(creds.tls.key!).toString()).toBe('KEY');
    expect(creds.tls.ca).toBeUndefined();
    expect(creds.tls.rejectUnauthorized).toBe(false);
    expect(creds.tls.servername).toBe('api.internal');
    expect(creds.headers).toEqual({ 'impersonate-user': 'jane' });
  });

  it('sends basic auth for a username and password', async () => {
    const text = good().replace('    token: secret-token', '    username: admin\n    password: s3cret');
    const creds = await (await loadKubeConfig({ kubeconfig: await file('basic', text), env: {} })).credentials();
    expect(creds.headers['authorization']).toBe(`Basic ${Buffer.from('admin:s3cret').toString('base64')}`);
  });

  it('runs an exec credential plugin (through @kubernetes/client-node) for a user that has one', async () => {
    const credential = JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'from-exec' } });
    const plugin = await file('plugin.sh', `#!/bin/sh\necho '${credential}'\n`);
    await chmod(plugin, 0o755);
    const text = good().replace('    token: secret-token', `    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ${plugin}\n      interactiveMode: Never`);
    const creds = await (await loadKubeConfig({ kubeconfig: await file('exec', text), env: {} })).credentials();
    expect(creds.headers['authorization']).toBe('Bearer from-exec');
    expect(Buffer.from(creds.tls.ca!).toString()).toContain('BEGIN CERTIFICATE');
  });

  it('uses the in-cluster service account when KUBERNETES_SERVICE_HOST is set', async () => {
    const root = join(dir, 'pod');
    const sa = join(root, 'var/run/secrets/kubernetes.io/serviceaccount');
    await mkdir(sa, { recursive: true });
    await writeFile(join(sa, 'token'), 'pod-token');
    await writeFile(join(sa, 'ca.crt'), Buffer.from(CA, 'base64'));
    await writeFile(join(sa, 'namespace'), 'olmv1-system');
    const access = await loadKubeConfig({ env: { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' }, inClusterRoot: root });
    expect(access.server).toBe('https://10.0.0.1:443');
    expect(access.namespace).toBe('olmv1-system');
    expect(access.source).toBe('in-cluster service account');
    expect((await access.credentials()).headers['authorization']).toBe('Bearer pod-token');
  });

  it.each([
    { name: 'missing file', setup: async () => join(dir, 'nope.yaml'), code: 'NotFound', message: (p: string) => `kubeconfig ${p}: file does not exist` },
    {
      name: 'malformed YAML',
      setup: () => file('bad-yaml', 'clusters:\n  - name: c\n   cluster: {'),
      code: 'Malformed',
      message: (p: string) => `kubeconfig ${p}: not valid YAML: bad indentation of a sequence entry (line 3, column 4)`,
    },
    { name: 'empty file', setup: () => file('empty', ''), code: 'Malformed', message: (p: string) => `kubeconfig ${p}: file is empty` },
    {
      name: 'not a mapping',
      setup: () => file('list', '- a\n- b\n'),
      code: 'Malformed',
      message: (p: string) => `kubeconfig ${p}: not a kubeconfig (expected a YAML mapping with clusters, users and contexts)`,
    },
    {
      name: 'cluster without server',
      setup: () => file('no-server', good().replace('    server: https://127.0.0.1:6443/\n', '')),
      code: 'Invalid',
      message: (p: string) => `kubeconfig ${p}: clusters[0].cluster.server is missing`,
    },
    {
      name: 'no current-context',
      setup: () => file('no-current', good().replace('current-context: ctx', '')),
      code: 'Invalid',
      message: (p: string) => `kubeconfig ${p}: no current-context is set and no context was given`,
    },
    {
      name: 'context names an unknown cluster',
      setup: () => file('dangling', good().replace('    cluster: c\n', '    cluster: gone\n')),
      code: 'Invalid',
      message: (p: string) => `kubeconfig ${p}: context "ctx" refers to cluster "gone", which is not defined`,
    },
    {
      name: 'server is not a URL',
      setup: () => file('bad-url', good().replace('https://127.0.0.1:6443/', 'localhost:6443')),
      code: 'Invalid',
      message: (p: string) => `kubeconfig ${p}: cluster "c" has server "localhost:6443", which is not an http(s) URL`,
    },
    {
      name: 'certificate file missing',
      setup: () => file('no-ca', good().replace(`certificate-authority-data: ${CA}`, 'certificate-authority: ca-that-is-not-there.crt')),
      code: 'Invalid',
      message: (p: string) => `kubeconfig ${p} (context ctx): file ${join(dir, 'ca-that-is-not-there.crt')} does not exist`,
    },
  ])('$name: one line naming the file', async ({ setup, code, message }) => {
    const path = await setup();
    const e = await failure({ kubeconfig: path, env: {} });
    expect(e.code).toBe(code);
    expect(e.message).toBe(message(path));
  });

  it('names the unknown context that was asked for', async () => {
    const p = await file('ctx', good());
    expect((await failure({ kubeconfig: p, context: 'prod', env: {} })).message).toBe(`kubeconfig ${p}: context "prod" is not defined`);
  });

  it('names $KUBECONFIG when none of its files exists', async () => {
    const e = await failure({ env: { KUBECONFIG: '/nonexistent/a:/nonexistent/b' } });
    expect(e.message).toBe('kubeconfig (from $KUBECONFIG) /nonexistent/a:/nonexistent/b: none of these files exists');
  });

  it('says where it looked when there is no configuration at all', async () => {
    const e = await failure({ env: { HOME: join(dir, 'empty-home') } });
    expect(e.code).toBe('NoConfiguration');
    expect(e.message).toBe(
      'no Kubernetes configuration found: pass --kubeconfig, set KUBECONFIG, create ~/.kube/config, or run in a pod with a service account',
    );
  });
});
