// catalogd: reconciles ClusterCatalogs. Wiring only; behaviour lives in internal/catalogd.
import { main } from '../../internal/shared/manager/index.ts';
import { catalogdSetup } from '../../internal/catalogd/index.ts';

main('catalogd', () => catalogdSetup);
