// Tar headers for the layers this folder builds: ustar, with a POSIX pax record only where a
// field does not fit (a long or non-ASCII name or link target, a size of 8 GiB or more).
// Everything that varies between machines is fixed: mtime 0, uid/gid 0, no user or group names,
// so the same tree always gives the same bytes. The reader is tar.ts.

export type TarWriteType = 'file' | 'dir' | 'symlink';

export interface TarWriteEntry {
  /** Path inside the image, without a leading `/`; directories end with `/`. */
  readonly path: string;
  readonly type: TarWriteType;
  readonly mode: number;
  /** Bytes of data that follow (files only). */
  readonly size: number;
  /** Symlink target. */
  readonly linkpath?: string;
}

const BLOCK = 512;
const MAX_OCTAL_SIZE = 0o77777777777;
const TYPEFLAG: Readonly<Record<TarWriteType, string>> = { file: '0', symlink: '2', dir: '5' };

/** The two zero blocks that end an archive. */
export const TAR_END: Buffer = Buffer.alloc(2 * BLOCK);

/** Zero bytes that pad `size` bytes of data to a whole block. */
export const tarPadding = (size: number): Buffer => Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);

const isPlainAscii = (s: string): boolean => /^[\x20-\x7e]*$/.test(s);

function octal(buf: Buffer, value: number, offset: number, length: number): void {
  buf.write(`${value.toString(8).padStart(length - 1, '0')}\0`, offset, length, 'latin1');
}

function block(name: string, prefix: string, flag: string, mode: number, size: number, linkpath: string): Buffer {
  const h = Buffer.alloc(BLOCK);
  h.write(name, 0, 100, 'utf8');
  octal(h, mode, 100, 8);
  octal(h, 0, 108, 8); // uid
  octal(h, 0, 116, 8); // gid
  octal(h, size, 124, 12);
  octal(h, 0, 136, 12); // mtime
  h.fill(0x20, 148, 156); // checksum placeholder: spaces
  h.write(flag, 156, 1, 'latin1');
  h.write(linkpath, 157, 100, 'utf8');
  h.write('ustar\0', 257, 6, 'latin1');
  h.write('00', 263, 2, 'latin1');
  octal(h, 0, 329, 8); // devmajor
  octal(h, 0, 337, 8); // devminor
  h.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'latin1');
  return h;
}

/** `len key=value\n`, where len counts the whole record including itself. */
function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  const n = Buffer.byteLength(body);
  let len = n + 1;
  while (String(len).length + n !== len) len = String(len).length + n;
  return `${len}${body}`;
}

/** ustar splits a long name at a `/` into prefix (≤ 155 bytes) and name (≤ 100 bytes). */
function splitUstar(path: string): [string, string] | undefined {
  if (!isPlainAscii(path)) return undefined;
  if (path.length <= 100) return ['', path];
  const trimmed = path.endsWith('/') ? path.slice(0, -1) : path;
  for (let i = Math.min(trimmed.lastIndexOf('/'), 155); i > 0; i = trimmed.lastIndexOf('/', i - 1)) {
    if (path.length - i - 1 <= 100) return [path.slice(0, i), path.slice(i + 1)];
  }
  return undefined;
}

/** The header block(s) of one entry: a pax header first when a field does not fit ustar. */
export function tarEntryHeader(e: TarWriteEntry): Buffer {
  const size = e.type === 'file' ? e.size : 0;
  const linkpath = e.linkpath ?? '';
  const records: string[] = [];
  const split = splitUstar(e.path);
  // Without a ustar split the pax `path` record carries the name; the header keeps an ASCII stand-in.
  const [prefix, name] = split ?? ['', Buffer.from(e.path).subarray(0, 99).toString('latin1').replace(/[^\x20-\x7e]/g, '_')];
  if (!split) records.push(paxRecord('path', e.path));
  let link = linkpath;
  if (Buffer.byteLength(linkpath) > 100 || !isPlainAscii(linkpath)) {
    records.push(paxRecord('linkpath', linkpath));
    link = '';
  }
  if (size > MAX_OCTAL_SIZE) records.push(paxRecord('size', String(size)));
  const main = block(name, prefix, TYPEFLAG[e.type], e.mode, size > MAX_OCTAL_SIZE ? 0 : size, link);
  if (records.length === 0) return main;
  const body = Buffer.from(records.join(''), 'utf8');
  return Buffer.concat([block('PaxHeader', '', 'x', 0o644, body.length, ''), body, tarPadding(body.length), main]);
}
