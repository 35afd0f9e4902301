// The usage of `kubectl olm resolve --namespace`, apart from its module so `resolve --help` loads nothing more.
export const NAMESPACE_USAGE = [
  'Usage: kubectl olm resolve --namespace <ns> [--global-namespace olm] [--insecure-registries host[,host]]',
  '                          [--kubeconfig <file>] [--context <name>]',
  '',
  'Resolves a namespace\'s Subscriptions as OLM classic does (every Subscription and CSV of the namespace, the',
  'CatalogSources of the namespace and of the global catalog namespace) and prints the bundles a plan would',
  'install. When the constraints conflict, prints the ResolutionFailed message followed by the minimal set of',
  'conflicting constraints, one per line, naming the Subscription, bundle, package or API each is about.',
  '',
  'Example:',
  '  kubectl olm resolve -n operators',
];
