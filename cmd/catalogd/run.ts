// catalogd: reconciles ClusterCatalogs and serves their content. Wiring only; behaviour lives in
// internal/catalogd.
import { defaultImplementations } from '../../internal/catalogd/index.ts';
import { catalogdSetup } from '../../internal/catalogd/index.ts';
import { main } from '../../internal/shared/manager/index.ts';
import { CATALOGD_METRICS, catalogdFlags, catalogdOptions } from './flags.ts';

main(
  'catalogd',
  (values) => catalogdSetup(catalogdOptions(values), defaultImplementations),
  catalogdFlags,
  CATALOGD_METRICS,
);
