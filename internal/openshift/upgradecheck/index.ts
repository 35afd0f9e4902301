// `kubectl olm upgrade-check`'s logic: which installs block an OpenShift upgrade and what to upgrade them to.
// See README.md.
export type { Allows, Blocker, CheckTarget, CsvInstall, ExtensionInstall, Finders, InstallKind, Report, UpgradeCandidate } from './check.ts';
export { targetRules, upgradeCheck } from './check.ts';
export type { ClusterFindersOptions } from './cluster.ts';
export { clusterFinders, clusterVersion, installedCsvs, installedExtensions } from './cluster.ts';
export { formatReport } from './format.ts';
