// Every kubectl-olm command, in help order: one line each, its module imported only when it runs
// (so `kubectl olm --help` loads none of them). commands.test.ts checks each line against its module.
// Paths starting with `__` are not listed in help.
import { lazy, type CliCommandEntry } from './types.ts';

export const commands: readonly CliCommandEntry[] = [
  lazy(['install'], 'install a package from the cluster’s catalogs as a ClusterExtension', async () => (await import('./extension.ts')).installCommand),
  lazy(['upgrade'], 'change the version range or channels of an extension (--force: any version)', async () => (await import('./extension.ts')).upgradeCommand),
  lazy(['uninstall'], 'delete an extension and everything it installed', async () => (await import('./extension.ts')).uninstallCommand),
  lazy(['list'], 'list extensions with their installed bundle and state', async () => (await import('./extension.ts')).listCommand),
  lazy(['approve'], 'approve an OLM classic InstallPlan that awaits approval (or a Subscription’s pending plan)', async () => (await import('./classic/approve.ts')).approveCommand),
  lazy(['migrate'], 'move an operator OLM classic installed (a Subscription) to an OLM v1 ClusterExtension in place', async () => (await import('./classic/migrate.ts')).migrateCommand),
  lazy(['migrate', 'check'], 'whether each OLM classic operator can move to OLM v1 in place, and why not (exit 1 when one cannot)', async () => (await import('./classic/migrate-check.ts')).migrateCheckCommand),
  lazy(['migrate', 'rollback'], 'give a migrated operator back to OLM classic from the backup `kubectl olm migrate` made', async () => (await import('./classic/migrate.ts')).migrateRollbackCommand),
  lazy(['status'], 'an extension’s state in words, its bundle, and what it would upgrade to', async () => (await import('./status.ts')).statusCommand),
  lazy(['explain'], 'why an extension resolves as it does, bundle by bundle, from the live catalogs', async () => (await import('./status.ts')).explainCommand),
  lazy(['search'], 'find packages in the serving catalogs by name, keyword or provider', async () => (await import('./search.ts')).searchCommand),
  lazy(['list-available'], 'a package’s channels, versions and deprecations in every serving catalog', async () => (await import('./search.ts')).listAvailableCommand),
  lazy(['catalog', 'add'], 'create a ClusterCatalog from a catalog image', async () => (await import('./clustercatalog.ts')).catalogAddCommand),
  lazy(['catalog', 'list'], 'list ClusterCatalogs with their availability, priority and serving state', async () => (await import('./clustercatalog.ts')).catalogListCommand),
  lazy(['catalog', 'delete'], 'delete a ClusterCatalog (or --all)', async () => (await import('./clustercatalog.ts')).catalogDeleteCommand),
  lazy(['catalog', 'validate'], 'check a file-based catalog directory with opm validate’s rules (exit 1 when invalid)', async () => (await import('./catalog.ts')).catalogValidate),
  lazy(['catalog', 'render'], 'print a catalog directory as catalogd serves it (JSON lines, /api/v1/all)', async () => (await import('./catalog.ts')).catalogRender),
  lazy(['catalog', 'push'], 'validate a file-based catalog directory and push it as a catalog image (no container engine needed)', async () => (await import('./publish.ts')).catalogPush),
  lazy(['resolve'], 'show which bundle a ClusterExtension would get from catalog directories (offline), or a namespace’s classic resolution (-n)', async () => (await import('./resolve.ts')).resolveCommand),
  lazy(['bundle', 'render'], 'print the manifests operator-controller would install from a registry+v1 bundle directory', async () => (await import('./bundle.ts')).bundleRender),
  lazy(['bundle', 'push'], 'push a registry+v1 bundle directory as a bundle image (no container engine needed)', async () => (await import('./publish.ts')).bundlePush),
  lazy(['upgrade-check'], 'list the operators that block the next OpenShift minor (or --to) and what to upgrade each to first', async () => (await import('./upgrade-check.ts')).upgradeCheckCommand),
  lazy(['version'], 'print the kubectl-olm version (and the cluster’s Kubernetes version unless --client)', async () => (await import('./version.ts')).versionCommand),
  lazy(['completion'], 'print a bash or zsh completion script', async () => (await import('./completion.ts')).completionCommand),
  lazy(['__complete'], 'shell completion (cobra protocol); used by the completion scripts', async () => (await import('./completion.ts')).completeCommand(commands)),
];
