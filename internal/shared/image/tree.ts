// Whole-tree file operations on unpacked images: making a finished unpack read-only, and removing one again.
import { chmod, lstat, opendir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** Removes write permission from everything under `root` (symlinks untouched). Lists directories as it goes (no array of a huge directory's entries). */
export async function makeReadOnly(root: string): Promise<void> {
  for await (const d of await opendir(root, { bufferSize: 128 })) {
    const p = join(root, d.name);
    if (d.isDirectory()) await makeReadOnly(p);
    if (d.isSymbolicLink()) continue;
    const st = await lstat(p);
    await chmod(p, st.mode & 0o7555);
  }
  const st = await lstat(root);
  await chmod(root, st.mode & 0o7555);
}

/** `rm -rf` that also works on trees made read-only by `makeReadOnly`. */
export async function forceRemove(path: string): Promise<void> {
  try {
    await rm(path, { recursive: true, force: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EACCES' && (err as NodeJS.ErrnoException).code !== 'EPERM') throw err;
    await makeWritable(path);
    await rm(path, { recursive: true, force: true });
  }
}

async function makeWritable(path: string): Promise<void> {
  const st = await lstat(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return undefined;
    throw err;
  });
  if (!st?.isDirectory()) return;
  await chmod(path, (st.mode & 0o7777) | 0o700);
  for (const d of await readdir(path, { withFileTypes: true })) if (d.isDirectory()) await makeWritable(join(path, d.name));
}
