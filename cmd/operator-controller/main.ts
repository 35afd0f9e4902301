// operator-controller: reconciles ClusterExtensions. Wiring only; behaviour lives in internal/operator-controller.
import { defaultImplementations } from '../../internal/operator-controller/index.ts';
import { operatorControllerSetup } from '../../internal/operator-controller/index.ts';
import { UsageError, main } from '../../internal/shared/manager/index.ts';
import { operatorControllerFlags, operatorControllerOptions } from './flags.ts';

main(
  'operator-controller',
  (values) => {
    try {
      return operatorControllerSetup(operatorControllerOptions(values), defaultImplementations);
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      process.stderr.write(`${err.message}\nRun 'operator-controller --help' for usage.\n`);
      process.exit(2);
    }
  },
  operatorControllerFlags,
);
