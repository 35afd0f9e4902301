// The one guard for a JSON object read as unknown (decoded manifests, schemas, CSV fields).

/** True for a plain JSON object: not null, not an array. */
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
