// The scenarios of the experimental profile that need Pods (skips.ts DEPLOYED_*), with catalogd (2 replicas) and
// operator-controller deployed as Pods of the project's image on a real node, as upstream's test-experimental-e2e
// deploys them (support/deployed.ts).
import { defineProfileTests } from './support/runner.ts';

defineProfileTests('experimental', { deployed: true });
