// Images the local cluster's real nodes run that no registry of this machine holds and none may be pulled from the
// internet: the sandbox (pause) image and CoreDNS, each one static binary from test/envtest (Go modules built from the
// module proxy) in a single layer, built by the project's own image builder (internal/shared/image) and pushed to the
// local registry, where containerd pulls them like any image.
import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildImage, pushImage, RegistryClient, type ImageRuntime } from '../../internal/shared/image/index.ts';
import { clusterBinaries } from './binaries.ts';

export interface ClusterImages {
  /** `<registry>/olm-test/pause@sha256:…`: containerd's sandbox_image. */
  readonly pause: string;
  /** `<registry>/olm-test/coredns@sha256:…`: the kube-dns Deployment's image. */
  readonly coredns: string;
  /** `<registry>/olm-test/workload@sha256:…`: test/envtest/workload, the tests' small HTTP program (non-root). */
  readonly workload: string;
}

/**
 * One static binary at `/<name>` as the image's entrypoint, pushed to `<registryHost>/<repository>:<tag>` (default
 * `olm-test/<name>:local`); returns the digest reference.
 */
export async function pushBinaryImage(
  registryHost: string,
  name: string,
  binary: string,
  { repository = `olm-test/${name}`, tag = 'local', runtime = {} }: { repository?: string; tag?: string; runtime?: ImageRuntime } = {},
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `olm-image-${name}-`));
  const client = new RegistryClient({ insecureRegistries: [registryHost], userAgent: 'olm-test' });
  try {
    await mkdir(join(dir, 'rootfs'));
    await copyFile(binary, join(dir, 'rootfs', name));
    const image = await buildImage({ layers: [{ dir: join(dir, 'rootfs') }], runtime: { entrypoint: [`/${name}`], ...runtime } });
    try {
      const pushed = await pushImage(client, `${registryHost}/${repository}:${tag}`, image);
      return pushed.digestRef;
    } finally {
      await image.dispose();
    }
  } finally {
    await client.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Pushes the pause, CoreDNS and workload images to the registry at `registryHost` (the binaries built on first use). */
export async function pushClusterImages(registryHost: string): Promise<ClusterImages> {
  const { pause, coredns, workload } = await clusterBinaries();
  const [pauseRef, corednsRef, workloadRef] = await Promise.all([
    pushBinaryImage(registryHost, 'pause', pause, { runtime: { user: '65535:65535' } }),
    // Non-root; port 53 is allowed to it because containerd opens the unprivileged ports to Pods.
    pushBinaryImage(registryHost, 'coredns', coredns, { runtime: { cmd: ['-conf', '/etc/coredns/Corefile'], user: '65532:65532' } }),
    pushBinaryImage(registryHost, 'workload', workload, { runtime: { user: '65532:65532' } }),
  ]);
  return { pause: pauseRef, coredns: corednsRef, workload: workloadRef };
}

/** Debian's static busybox (package busybox-static, make system-deps). */
const BUSYBOX = '/bin/busybox';

/**
 * `<registryHost>/library/busybox:<tag>`: Debian's static busybox with a link for each of its applets in /bin — what
 * upstream's e2e test operators run (`busybox:1.36`, a shell script serving httpd). Real nodes mirror docker.io to the
 * local registry, so `busybox:1.36` is pulled from here. Returns the digest reference.
 */
export async function pushBusyboxImage(registryHost: string, tag = '1.36'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'olm-image-busybox-'));
  const client = new RegistryClient({ insecureRegistries: [registryHost], userAgent: 'olm-test' });
  try {
    const bin = join(dir, 'rootfs', 'bin');
    await mkdir(bin, { recursive: true });
    await copyFile(BUSYBOX, join(bin, 'busybox'));
    const applets = execFileSync(BUSYBOX, ['--list'], { encoding: 'utf8' }).split('\n').filter((a) => a !== '' && a !== 'busybox');
    for (const applet of applets) await symlink('busybox', join(bin, applet));
    await mkdir(join(dir, 'rootfs', 'tmp'));
    const image = await buildImage({ layers: [{ dir: join(dir, 'rootfs') }], runtime: { env: ['PATH=/bin'], cmd: ['sh'] } });
    try {
      return (await pushImage(client, `${registryHost}/library/busybox:${tag}`, image)).digestRef;
    } finally {
      await image.dispose();
    }
  } finally {
    await client.close();
    await rm(dir, { recursive: true, force: true });
  }
}
