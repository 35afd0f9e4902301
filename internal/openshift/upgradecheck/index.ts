// `kubectl olm upgrade-check`'s logic: which installs block an OpenShift upgrade and what to upgrade them to.
// See README.md.
export type { Allows, Report } from './check.ts';
export { upgradeCheck } from './check.ts';
export { clusterFinders, clusterVersion, installedCsvs, installedExtensions } from './cluster.ts';
export { formatReport } from './format.ts';
