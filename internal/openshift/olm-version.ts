// This OLM's version, as upstream's build stamps OLMVersion: the ClusterOperator's `versions` entry and the
// Progressing message (`Deployed <version>`). Kept equal to package.json's version by olm-version.test.ts.
export const OLM_VERSION = '0.1.0';
