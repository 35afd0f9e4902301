// Go's hash/fnv New64a: the hash upstream OLM puts in annotation and label keys (installed-alongside, provided APIs).

/** FNV-1a, 64 bits, of the UTF-8 bytes of `text`. */
export function fnv64a(text: string): bigint {
  let h = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text)) h = ((h ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h;
}
