// Platforms (`os/architecture[/variant]`) and picking one entry of a manifest list / OCI index.
import { ImageError } from './errors.ts';

export interface Platform {
  readonly os: string;
  readonly architecture: string;
  readonly variant?: string;
}

export const DEFAULT_PLATFORM: Platform = { os: 'linux', architecture: 'amd64' };

const ARCH_ALIASES: Readonly<Record<string, string>> = { x86_64: 'amd64', x86: '386', aarch64: 'arm64', armhf: 'arm' };

/** `linux/arm64/v8` → {os, architecture, variant}. */
export function parsePlatform(text: string): Platform {
  const parts = text.trim().toLowerCase().split('/');
  const [os, arch, variant] = parts;
  if (!os || !arch || parts.length > 3 || (parts.length === 3 && !variant)) {
    throw new ImageError('NoMatchingPlatform', `invalid platform ${JSON.stringify(text)}: want os/architecture[/variant]`, {
      terminal: true,
    });
  }
  return { os, architecture: ARCH_ALIASES[arch] ?? arch, ...(variant ? { variant } : {}) };
}

export const formatPlatform = (p: Platform): string =>
  `${p.os}/${p.architecture}${p.variant ? `/${p.variant}` : ''}`;

// containerd's platforms.Normalize: arm64 has v8 as its only (default) variant; plain arm means v7.
function normalizedVariant(p: Platform): string {
  const v = p.variant ?? '';
  if (p.architecture === 'arm64' && (v === '' || v === 'v8')) return 'v8';
  if (p.architecture === 'arm' && v === '') return 'v7';
  return v;
}

/** True when `candidate` (from an index) can run where `want` is asked for. */
export function platformMatches(want: Platform, candidate: Platform): boolean {
  if (candidate.os !== want.os) return false;
  const arch = ARCH_ALIASES[candidate.architecture] ?? candidate.architecture;
  if (arch !== (ARCH_ALIASES[want.architecture] ?? want.architecture)) return false;
  if (want.variant === undefined && arch !== 'arm' && arch !== 'arm64') return true;
  return normalizedVariant({ ...want, architecture: arch }) === normalizedVariant({ ...candidate, architecture: arch });
}

/** The first entry whose platform matches, or undefined. Entries without a platform never match. */
export function selectPlatform<T extends { readonly platform?: Platform }>(entries: readonly T[], want: Platform): T | undefined {
  return entries.find((e) => e.platform !== undefined && platformMatches(want, e.platform));
}
