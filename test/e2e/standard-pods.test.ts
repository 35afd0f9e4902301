// The scenarios of the standard profile that need Pods (skips.ts DEPLOYED_*), with catalogd and operator-controller
// deployed as Pods of the project's image on a real node, as upstream's test-e2e deploys them (support/deployed.ts).
import { defineProfileTests } from './support/runner.ts';

defineProfileTests('standard', { deployed: true });
