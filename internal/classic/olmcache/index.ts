// The informers the olm-operator side of classic shares (CSVs, OperatorGroups, OperatorConditions, the Deployments
// CSVs own, Namespaces, ServiceAccounts, RBAC, CRDs, Subscriptions): one cache per kind for the CSV, OperatorGroup
// and OperatorCondition controllers in the process. See README.md.
export { COPY_SPEC_HASH, COPY_STATUS_HASH, deepHash, copyableCSVHash, olmCaches } from './caches.ts';
export type { CachedCRD, OlmCaches } from './caches.ts';
export { isCopiedCSV as isCopied, isCopiedObject } from '../../../api/operators/index.ts';
