// operator-controller: reconciles ClusterExtensions. Wiring only; behaviour lives in internal/operator-controller.
import { defaultImplementations } from '../../internal/operator-controller/index.ts';
import { objectSetRevisionSource, operatorControllerSetup, revisionHeadSource } from '../../internal/operator-controller/index.ts';
import { v1GatingSetup } from '../../internal/openshift/index.ts';
import { main, mergeParts } from '../../internal/shared/manager/index.ts';
import { OPERATOR_CONTROLLER_METRICS, operatorControllerFlags, operatorControllerOptions, v1GatingOptions } from './flags.ts';

main(
  'operator-controller',
  (values) => {
    const options = operatorControllerOptions(values);
    const gating = v1GatingOptions(values, process.env.RELEASE_VERSION);
    const setup = operatorControllerSetup(options, defaultImplementations);
    if (!gating) return setup;
    const revisions = options.boxcutterRuntime ? objectSetRevisionSource() : revisionHeadSource(options.systemNamespace);
    return async (ctx) => mergeParts(await setup(ctx), v1GatingSetup({ ...gating, revisions })(ctx));
  },
  operatorControllerFlags,
  OPERATOR_CONTROLLER_METRICS,
);
