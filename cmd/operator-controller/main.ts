// operator-controller: reconciles ClusterExtensions. Wiring only; behaviour lives in internal/operator-controller.
import { main } from '../../internal/shared/manager/index.ts';
import { operatorControllerSetup } from '../../internal/operator-controller/index.ts';

main('operator-controller', () => operatorControllerSetup);
