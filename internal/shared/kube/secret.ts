// core/v1 Secret as the controllers read and write it: its type and where a client call names it.
import type { KubeObject } from '../../../api/meta/v1.ts';

/** A core/v1 Secret: `data` values base64-encoded, as the API server serves them. */
export interface Secret extends KubeObject {
  type?: string;
  immutable?: boolean;
  data?: Record<string, string>;
}

/** apiVersion and kind of Secrets, spread into a KubeClient call's object reference. */
export const SECRET_KIND = { apiVersion: 'v1', kind: 'Secret' } as const;
